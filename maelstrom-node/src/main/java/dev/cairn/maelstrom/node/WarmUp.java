package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * Before a node answers {@code init}, it serves its own client requests for a moment (issue 22): sends, polls,
 * offset commits and lists, through the same paths as Maelstrom's (JSON parsed from text, the write routed to the
 * partition's leader and replicated by Raft over Maelstrom's network, the reply body written as JSON and dropped).
 * Without it the workload's first seconds met interpreted code in every JVM at once: on the seed's shape most of a
 * run's slowest 1% fell in its first 2 s.
 *
 * <p>The keys are {@value #KEY_PREFIX}{@code <node>-<n>}, one per lane, chosen so that the lanes cover every
 * partition. Maelstrom's keys are integers, so its polls and lists never see these records or groups; its send
 * offsets per key stay increasing, only sparser (other keys already share each partition). Bounded by
 * {@link #REQUESTS_MAX}, by the caller's end time, and per write by {@link #WRITE_DEADLINE_MS}; a failed request
 * is counted and the lane goes on.
 */
final class WarmUp {
    private static final ObjectMapper MAPPER = MaelstromIo.mapper();

    /** Prefix of the warm-up's keys; Maelstrom's kafka workload uses integer keys only. */
    static final String KEY_PREFIX = "cairn-warm-up-";
    /** Requests in flight at once (Maelstrom's seed shape runs 4 clients). */
    static final int LANES = 4;
    /** Requests per node at most, half of them writes through Raft (messages Maelstrom counts in msgs/op). */
    static final int REQUESTS_MAX = 800;
    /** How long one warm-up write may take. */
    static final long WRITE_DEADLINE_MS = 1_000;
    /** Candidate key suffixes tried per lane to land on the lane's partition. */
    private static final int KEY_SEARCH_MAX = 10_000;

    /** What a warm-up did. */
    record Outcome(int requests, int errors, long elapsedMs) {
    }

    private final ClientRequests requests;
    private final Executor executor;
    private final LongSupplier nanoClock;
    private final String nodeId;
    private final String[] keys;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger made = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicInteger lanesRunning = new AtomicInteger(LANES);
    private final CompletableFuture<Outcome> done = new CompletableFuture<>();
    private long startNs;
    private long untilNs;

    WarmUp(ClientRequests requests, Executor executor, LongSupplier nanoClock, String nodeId, int partitions,
            ToIntFunction<String> partitionOf) {
        this.requests = requests;
        this.executor = executor;
        this.nanoClock = nanoClock;
        this.nodeId = nodeId;
        this.keys = new String[LANES];
        for (int lane = 0; lane < LANES; lane++) {
            keys[lane] = keyOn(lane % partitions, nodeId, lane, partitionOf);
        }
    }

    /** The first key of this lane's name space that lives on {@code partition} (any key when none is found). */
    static String keyOn(int partition, String nodeId, int lane, ToIntFunction<String> partitionOf) {
        String base = KEY_PREFIX + nodeId + "-" + lane + "-";
        for (int n = 0; n < KEY_SEARCH_MAX; n++) {
            if (partitionOf.applyAsInt(base + n) == partition) {
                return base + n;
            }
        }
        return base + 0;
    }

    /** Runs until {@link #REQUESTS_MAX} requests were made or {@code untilNs}; never completes exceptionally. */
    CompletableFuture<Outcome> run(long untilNs) {
        this.startNs = nanoClock.getAsLong();
        this.untilNs = untilNs;
        for (int lane = 0; lane < LANES; lane++) {
            Lane l = new Lane(keys[lane]);
            schedule(l);
        }
        return done;
    }

    private void schedule(Lane lane) {
        try {
            executor.execute(lane::step);
        } catch (RejectedExecutionException e) {
            laneDone();
        }
    }

    private void laneDone() {
        if (lanesRunning.decrementAndGet() == 0) {
            done.complete(new Outcome(made.get(), errors.get(),
                    TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - startNs)));
        }
    }

    /** One closed loop: send, poll, commit the last offset, list it, and again. */
    private final class Lane {
        private final String key;
        private long lastOffset;
        private int step;

        Lane(String key) {
            this.key = key;
        }

        void step() {
            int n = started.getAndIncrement();
            if (n >= REQUESTS_MAX || nanoClock.getAsLong() - untilNs >= 0) {
                laneDone();
                return;
            }
            made.incrementAndGet();
            long deadlineNs = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(WRITE_DEADLINE_MS);
            CompletableFuture<ObjectNode> reply;
            try {
                reply = switch (step++ % 4) {
                    case 0 -> requests.send(parse("{\"type\":\"send\",\"key\":\"" + key + "\",\"msg\":" + n + "}"),
                            deadlineNs);
                    case 1 -> CompletableFuture.completedFuture(requests.poll(parse(
                            "{\"type\":\"poll\",\"offsets\":{\"" + key + "\":" + lastOffset + "}}")));
                    case 2 -> requests.commitOffsets(parse("{\"type\":\"commit_offsets\",\"offsets\":{\"" + key
                            + "\":" + lastOffset + "}}"), deadlineNs);
                    default -> CompletableFuture.completedFuture(requests.listCommittedOffsets(parse(
                            "{\"type\":\"list_committed_offsets\",\"keys\":[\"" + key + "\"]}")));
                };
            } catch (IOException | RuntimeException e) {
                reply = CompletableFuture.completedFuture(KafkaNode.error(KafkaNode.ERROR_CRASH, e.toString()));
            }
            reply.whenComplete((body, failure) -> {
                if (failure != null || body == null || "error".equals(body.path("type").asText())) {
                    errors.incrementAndGet();
                } else {
                    lastOffset = body.path("offset").asLong(lastOffset);
                    drop(body);
                }
                schedule(this);
            });
        }

        /** A request body as Maelstrom's message would carry it, parsed from its text as the reader does. */
        private ObjectNode parse(String body) throws IOException {
            JsonNode message = MAPPER.readTree("{\"src\":\"c0\",\"dest\":\"" + nodeId + "\",\"body\":" + body + "}");
            ObjectNode parsed = (ObjectNode) message.get("body");
            parsed.put("msg_id", step);
            return parsed;
        }

        /** Writes the reply as the node would, then forgets it. */
        private void drop(ObjectNode body) {
            ObjectNode message = MAPPER.createObjectNode().put("src", nodeId).put("dest", "c0");
            message.set("body", body);
            message.toString();
        }
    }
}
