package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A throwing listener does not cut the rebalance short: every callback still runs, and the first exception is
 * thrown afterwards, wrapped, once (kafka-clients ConsumerCoordinator.onJoinComplete keeps the first exception and
 * throws "User rebalance callback throws an error" after the assignment is updated).
 */
class RebalanceListenerInvokerTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);

    @Test
    void theFirstFailureIsThrownAfterTheOtherCallbacksRanAndOnlyOnce() {
        List<String> calls = new ArrayList<>();
        IllegalStateException revokeFailure = new IllegalStateException("revoke");
        IllegalArgumentException assignFailure = new IllegalArgumentException("assign");
        RebalanceListenerInvoker invoker = new RebalanceListenerInvoker();
        invoker.listener(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                calls.add("revoked");
                throw revokeFailure;
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                calls.add("assigned");
                throw assignFailure;
            }
        });
        invoker.revoked(List.of(P0));
        invoker.assigned(List.of(P0));
        assertEquals(List.of("revoked", "assigned"), calls);
        CairnRebalanceListenerException thrown = assertThrows(CairnRebalanceListenerException.class,
                invoker::throwIfFailed);
        assertSame(revokeFailure, thrown.getCause());
        assertSame(assignFailure, thrown.getSuppressed()[0]);
        assertTrue(thrown.isRetriable());
        assertTrue(thrown.getMessage().contains("onPartitionsRevoked"), thrown.getMessage());
        assertDoesNotThrow(invoker::throwIfFailed, "thrown once");
    }

    @Test
    void anErrorIsNotCaught() {
        RebalanceListenerInvoker invoker = new RebalanceListenerInvoker();
        invoker.listener(new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                throw new OutOfMemoryError("simulated");
            }
        });
        assertThrows(OutOfMemoryError.class, () -> invoker.assigned(List.of(P0)));
    }
}
