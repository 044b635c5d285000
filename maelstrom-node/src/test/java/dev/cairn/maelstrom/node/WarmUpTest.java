package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WarmUpTest {
    private static final ObjectMapper MAPPER = MaelstromIo.mapper();
    private static final Executor DIRECT = Runnable::run;

    /** Answers like a healthy node: offsets 0, 1, 2... per send; records what it was asked. */
    private static final class RecordingRequests implements ClientRequests {
        final List<String> types = new ArrayList<>();
        final Set<String> keys = new HashSet<>();
        final List<Long> committed = new ArrayList<>();
        long nextOffset;
        boolean failWrites;

        @Override
        public synchronized CompletableFuture<ObjectNode> send(ObjectNode body, long deadlineNs) {
            types.add(body.path("type").asText());
            keys.add(body.path("key").asText());
            if (failWrites) {
                return CompletableFuture.failedFuture(new IllegalStateException("no leader"));
            }
            return CompletableFuture.completedFuture(MAPPER.createObjectNode().put("type", "send_ok")
                    .put("offset", nextOffset++));
        }

        @Override
        public synchronized ObjectNode poll(ObjectNode body) {
            types.add(body.path("type").asText());
            return MAPPER.createObjectNode().put("type", "poll_ok");
        }

        @Override
        public synchronized CompletableFuture<ObjectNode> commitOffsets(ObjectNode body, long deadlineNs) {
            types.add(body.path("type").asText());
            body.path("offsets").properties().forEach(e -> committed.add(e.getValue().asLong()));
            if (failWrites) {
                return CompletableFuture.completedFuture(KafkaNode.error(KafkaNode.ERROR_CRASH, "unknown"));
            }
            return CompletableFuture.completedFuture(MAPPER.createObjectNode().put("type", "commit_offsets_ok"));
        }

        @Override
        public synchronized ObjectNode listCommittedOffsets(ObjectNode body) {
            types.add(body.path("type").asText());
            return MAPPER.createObjectNode().put("type", "list_committed_offsets_ok");
        }
    }

    private static int partitionOf(String key, int partitions) {
        return Math.floorMod(key.hashCode(), partitions);
    }

    @Test
    void lanesCoverEveryPartitionWithKeysMaelstromNeverUses() {
        for (int partitions : new int[] {1, 2, 3, 4}) {
            Set<Integer> covered = new HashSet<>();
            for (int lane = 0; lane < WarmUp.LANES; lane++) {
                String key = WarmUp.keyOn(lane % partitions, "n1", lane, k -> partitionOf(k, partitions));
                assertTrue(key.startsWith(WarmUp.KEY_PREFIX + "n1-"), key);
                assertEquals(lane % partitions, partitionOf(key, partitions), key);
                covered.add(partitionOf(key, partitions));
            }
            assertEquals(Math.min(partitions, WarmUp.LANES), covered.size());
        }
    }

    @Test
    void makesEveryKindOfRequestUpToItsBoundAndCommitsTheOffsetsItGot() throws Exception {
        RecordingRequests requests = new RecordingRequests();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            WarmUp.Outcome outcome = new WarmUp(requests, pool, System::nanoTime, "n0", 2, k -> partitionOf(k, 2))
                    .run(System.nanoTime() + TimeUnit.SECONDS.toNanos(20)).get(20, TimeUnit.SECONDS);
            assertEquals(WarmUp.REQUESTS_MAX, outcome.requests());
            assertEquals(0, outcome.errors());
            synchronized (requests) {
                assertEquals(WarmUp.REQUESTS_MAX, requests.types.size());
                // Each lane cycles through the four kinds; lanes stop at different points of their cycle.
                for (String type : List.of("send", "poll", "commit_offsets", "list_committed_offsets")) {
                    long count = requests.types.stream().filter(type::equals).count();
                    assertTrue(Math.abs(count - WarmUp.REQUESTS_MAX / 4) <= WarmUp.LANES, type + ": " + count);
                }
                assertEquals(WarmUp.LANES, requests.keys.size());
                // Each lane commits the offset its own last send got, never one it made up.
                for (long offset : requests.committed) {
                    assertTrue(offset < requests.nextOffset, "committed " + offset);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void stopsAtItsEndTimeAndCountsFailuresWithoutFailingItself() throws Exception {
        RecordingRequests requests = new RecordingRequests();
        requests.failWrites = true;
        AtomicLong clock = new AtomicLong();
        // Every request moves the fake clock 10 ms on; the warm-up may run 100 ms.
        WarmUp warmUp = new WarmUp(requests, DIRECT, () -> clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(5)), "n0", 1,
                k -> 0);
        WarmUp.Outcome outcome = warmUp.run(TimeUnit.MILLISECONDS.toNanos(100)).get(5, TimeUnit.SECONDS);
        assertTrue(outcome.requests() < WarmUp.REQUESTS_MAX, outcome.toString());
        assertTrue(outcome.requests() > 0, outcome.toString());
        assertTrue(outcome.errors() > 0 && outcome.errors() < outcome.requests(), outcome.toString());
    }
}
