package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The producer's reactions to Produce errors (kafka-protocol.md A.3, A.4), against a fake broker that scripts
 * them: retriable errors are retried after a metadata refresh with nothing lost, duplicated or reordered; a
 * batch that fails for good fails only its own records, and the sequence gap it leaves is healed by bumping the
 * producer epoch (KIP-360), without a new producer id.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerRetryTest {
    private static final int RECORDS = 300;

    private static ProducerConfig config(ScriptedBroker broker) {
        // Small batches so that the records span many batches and several are in flight at once.
        return ProducerConfig.builder().bootstrapServers(broker.bootstrap()).batchSizeBytes(256).lingerMs(0)
                .retryBackoffMs(1).build();
    }

    private static List<CompletableFuture<RecordMetadata>> sendAll(CairnProducer producer) {
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            futures.add(producer.send(new ProducerRecord(ScriptedBroker.TOPIC, 0, null, null,
                    ByteBuffer.allocate(Integer.BYTES).putInt(i).array(), List.of())));
        }
        producer.flush(Duration.ofSeconds(30));
        return futures;
    }

    @Test
    void retriableErrorsAreRetriedWithoutLossDuplicatesOrReordering() throws Exception {
        AtomicInteger answered = new AtomicInteger();
        // Every third batch is first answered NOT_LEADER_OR_FOLLOWER; the fake then accepts its retry.
        try (ScriptedBroker broker = new ScriptedBroker(batch -> answered.incrementAndGet() % 3 == 0
                ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NONE);
             CairnProducer producer = CairnProducer.create(config(broker))) {
            List<CompletableFuture<RecordMetadata>> futures = sendAll(producer);
            for (int i = 0; i < RECORDS; i++) {
                assertEquals(i, futures.get(i).get(1, TimeUnit.SECONDS).offset(), "record " + i);
            }
            List<byte[]> log = broker.log();
            assertEquals(RECORDS, log.size());
            for (int i = 0; i < RECORDS; i++) {
                assertArrayEquals(ByteBuffer.allocate(Integer.BYTES).putInt(i).array(), log.get(i));
            }
            assertTrue(producer.retriedBatchesForTesting() > 0, "batches were retried");
            assertTrue(broker.metadataRequests() > 1, "NOT_LEADER_OR_FOLLOWER refreshes metadata");
        }
    }

    @Test
    void aBatchThatFailsForGoodFailsOnlyItsRecordsAndAnEpochBumpHealsTheGap() throws Exception {
        AtomicBoolean rejected = new AtomicBoolean();
        // The first batch after the first one is rejected once with INVALID_RECORD, which no retry can fix.
        try (ScriptedBroker broker = new ScriptedBroker(batch -> batch.baseSequence() > 0
                && rejected.compareAndSet(false, true) ? ErrorCode.INVALID_RECORD : ErrorCode.NONE);
             CairnProducer producer = CairnProducer.create(config(broker))) {
            List<CompletableFuture<RecordMetadata>> futures = sendAll(producer);
            List<Integer> failed = new ArrayList<>();
            List<Integer> delivered = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                try {
                    futures.get(i).get(1, TimeUnit.SECONDS);
                    delivered.add(i);
                } catch (ExecutionException failure) {
                    CairnApiException cause = assertInstanceOf(CairnApiException.class, failure.getCause());
                    assertEquals(ErrorCode.INVALID_RECORD, cause.errorCode());
                    assertFalse(cause.isRetriable());
                    failed.add(i);
                }
            }
            assertFalse(failed.isEmpty(), "the rejected batch's records failed");
            assertEquals(failed.size(), failed.get(failed.size() - 1) - failed.get(0) + 1, "one contiguous batch");
            List<byte[]> log = broker.log();
            assertEquals(delivered.size(), log.size(), "every other record delivered exactly once");
            for (int i = 0; i < log.size(); i++) {
                assertEquals((int) delivered.get(i), ByteBuffer.wrap(log.get(i)).getInt(), "log order = send order");
            }
            assertEquals(1, broker.producerIdsIssued(), "no new producer id");
            assertEquals(Set.of((short) 0, (short) 1), broker.epochsAppended(), "the gap is healed with epoch 1");
        }
    }

    @Test
    void anExhaustedEpochTakesANewProducerId() throws Exception {
        AtomicBoolean rejected = new AtomicBoolean();
        try (ScriptedBroker broker = new ScriptedBroker(batch -> batch.baseSequence() > 0
                && rejected.compareAndSet(false, true) ? ErrorCode.INVALID_RECORD : ErrorCode.NONE)) {
            broker.issueEpoch(Short.MAX_VALUE);
            try (CairnProducer producer = CairnProducer.create(config(broker))) {
                List<CompletableFuture<RecordMetadata>> futures = sendAll(producer);
                long delivered = futures.stream().filter(future -> !future.isCompletedExceptionally()).count();
                assertTrue(delivered < RECORDS, "one batch failed");
                assertEquals(delivered, broker.log().size(), "every other record delivered exactly once");
                assertEquals(2, broker.producerIdsIssued(), "epoch Short.MAX_VALUE cannot be bumped: a new id");
                assertEquals(Set.of(Short.MAX_VALUE), broker.epochsAppended());
            }
        }
    }
}
