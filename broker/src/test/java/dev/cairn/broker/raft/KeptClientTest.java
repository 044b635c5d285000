package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftClientReply;
import org.junit.jupiter.api.Test;

/** The outstanding bound and the stall check of a kept client, with requests whose ends the test controls. */
class KeptClientTest {
    @Test
    void pastTheBoundARequestIsNotSentAndARequestEndedMakesRoom() {
        KeptClient kept = new KeptClient(null, List.of(), 2);
        CompletableFuture<RaftClientReply> first = new CompletableFuture<>();
        CompletableFuture<RaftClientReply> second = new CompletableFuture<>();
        assertNotNull(kept.start(client -> first));
        assertNotNull(kept.start(client -> second));
        boolean[] sent = new boolean[1];
        assertNull(kept.start(client -> {
            sent[0] = true;
            return new CompletableFuture<>();
        }));
        assertFalse(sent[0], "the refused request never reached the client");
        assertEquals(2, kept.outstanding());
        first.completeExceptionally(new IllegalStateException("failed"));
        assertEquals(1, kept.outstanding(), "a failed request ends too");
        assertNotNull(kept.start(client -> CompletableFuture.completedFuture(null)));
        assertEquals(1, kept.outstanding());
    }

    @Test
    void aSendThatThrowsEndsAtOnce() {
        KeptClient kept = new KeptClient(null, List.of(), 1);
        CompletableFuture<RaftClientReply> sent = kept.start(client -> {
            throw new IllegalStateException("closed");
        });
        assertTrue(sent.isCompletedExceptionally());
        assertEquals(0, kept.outstanding());
    }

    @Test
    void stalledOnlyWithRequestsOutstandingAndNoneEndedForTheWholeSpan() throws Exception {
        KeptClient kept = new KeptClient(null, List.of(), 4);
        long span = TimeUnit.MILLISECONDS.toNanos(50);
        assertFalse(kept.stalledFor(0), "nothing outstanding is no stall");
        CompletableFuture<RaftClientReply> pending = new CompletableFuture<>();
        kept.start(client -> pending);
        assertFalse(kept.stalledFor(TimeUnit.SECONDS.toNanos(60)));
        waitNanos(span);
        assertTrue(kept.stalledFor(span));
        kept.start(client -> CompletableFuture.completedFuture(null));
        assertFalse(kept.stalledFor(span), "a request ended just now");
    }

    @Test
    void theBoundMustAllowOneRequest() {
        assertThrows(IllegalArgumentException.class, () -> new KeptClient(null, List.of(), 0));
    }

    /** Lets the monotonic clock pass at least {@code nanos} (a span, not a wait on another thread's work). */
    private static void waitNanos(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }
}
