package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.maelstrom.transport.MaelstromTransport;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Maelstrom {@code kafka} node (maelstrom.md 3) on Cairn's partition core, replicated by Ratis over Maelstrom's
 * own network (architecture.md "Maelstrom mapping").
 *
 * <p>Mapping. Every key lives on partition {@code floorMod(key.hashCode(), P)} of one topic; each partition is a
 * Raft group over all nodes.
 * <ul>
 *   <li>{@code send{key,msg}}: a one-record RecordBatch v2 (record key = the Maelstrom key, value = the msg's
 *       JSON) appended through Raft; {@code send_ok{offset}} carries the batch's partition offset. Per key these
 *       offsets are sparse (other keys share the partition) but strictly increasing in commit order, which the
 *       workload allows.</li>
 *   <li>{@code poll{offsets}}: per key, the key's records of its partition from the requested offset on, read
 *       from this node's applied state ({@link PollReader}).</li>
 *   <li>{@code commit_offsets{offsets}}: one {@code CommitOffset} command per key through Raft, consumer group
 *       {@code "maelstrom:<key>"} on the key's partition. {@code list_committed_offsets{keys}}: that group's
 *       committed offset as applied here.</li>
 * </ul>
 * Every client request is answered within {@link NodeConfig#clientDeadlineMs()}: error 11 only when nothing
 * happened, error 13 when a write's outcome is unknown (see {@link WriteRouter}).
 */
public final class KafkaNode implements ClientRequests {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaNode.class);
    private static final ObjectMapper MAPPER = MaelstromIo.mapper();

    /** Group id prefix of the per-key consumer group that holds a key's committed offset. */
    public static final String GROUP_PREFIX = "maelstrom:";
    /** Worker threads for client requests and forwarded submits; polls read the log on them. */
    static final int CLIENT_THREADS = 4;
    static final int CLIENT_QUEUE_MAX = 10_000;
    /** Threads for inbound Raft requests (blocking votes, async appends). */
    static final int RAFT_THREADS = 4;
    static final int RAFT_QUEUE_MAX = 10_000;
    /** Threads completing outbound requests' futures (continuations run here, never on the stdin reader). */
    static final int REPLY_THREADS = 2;
    static final int REPLY_QUEUE_MAX = 100_000;

    /** How long init_ok waits for the groups' first leaders; Maelstrom wants init_ok within 10 s of init. */
    static final long INIT_LEADER_WAIT_MS = 4_000;
    static final long INIT_LEADER_POLL_MS = 20;
    /** ... and stops waiting once the JVM has been up this long, leaving room within Maelstrom's 10 s. */
    static final long INIT_OK_BY_UPTIME_MS = 6_000;
    /** The warm-up before init_ok ({@link WarmUp}) ends by this uptime whatever its own length. */
    static final long WARM_UP_END_BY_UPTIME_MS = 5_000;

    static final int ERROR_TEMPORARILY_UNAVAILABLE = 11;
    static final int ERROR_MALFORMED_REQUEST = 12;
    static final int ERROR_CRASH = 13;
    static final int ERROR_NOT_SUPPORTED = 10;

    private final NodeConfig config;
    private final MaelstromIo io;
    private final ExecutorService clientPool = pool("client", CLIENT_THREADS, CLIENT_QUEUE_MAX);
    private final ExecutorService raftPool = pool("raft-in", RAFT_THREADS, RAFT_QUEUE_MAX);
    private final MaelstromTransport transport;
    private volatile ReplicatedPartitions groups;
    private volatile WriteRouter router;
    private final PollReader[] readers;

    KafkaNode(NodeConfig config) {
        this.config = config;
        this.io = new MaelstromIo(pool("replies", REPLY_THREADS, REPLY_QUEUE_MAX));
        this.transport = new MaelstromTransport(io, raftPool, config.raftRequestTimeoutMs());
        this.readers = new PollReader[config.partitions()];
        for (int p = 0; p < readers.length; p++) {
            readers[p] = new PollReader();
        }
    }

    private static ExecutorService pool(String name, int threads, int queueMax) {
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueMax), MaelstromIo.daemon(name));
    }

    public static void main(String[] args) throws IOException {
        NodeConfig config;
        try {
            config = NodeConfig.parse(Arrays.asList(args));
        } catch (IllegalArgumentException e) {
            System.err.println("cairn-maelstrom-node: " + e.getMessage());
            System.exit(2);
            return;
        }
        LOG.info("starting with {}", config);
        KafkaNode node = new KafkaNode(config);
        node.io.startWriter(System.out);
        node.io.runReader(System.in, node::onMessage);
        node.shutdown();
    }

    private void shutdown() {
        ReplicatedPartitions g = groups;
        if (g != null) {
            try {
                g.close();
            } catch (IOException e) {
                LOG.warn("closing Ratis failed", e);
            }
        }
    }

    /** Dispatches one inbound message; runs on the stdin reader, so it only hands work to a pool. */
    private void onMessage(String src, ObjectNode body) {
        String type = body.path("type").asText();
        if ("raft".equals(type)) {
            transport.onRaftRequest(src, body);
            return;
        }
        if (CoreRaftGroups.MESSAGE_TYPE.equals(type)) {
            // Cairn's own Raft between nodes; before init there is no group to take it (a message lost).
            ReplicatedPartitions g = groups;
            if (g != null) {
                g.onRaftMessage(src, body);
            }
            return;
        }
        try {
            clientPool.execute(() -> handle(src, type, body));
        } catch (RejectedExecutionException e) {
            LOG.warn("client pool full: refusing {} from {}", type, src);
            if (!"submit".equals(type)) {
                io.reply(src, body, error(ERROR_TEMPORARILY_UNAVAILABLE, "node overloaded; request not started"));
            }
        }
    }

    private void handle(String src, String type, ObjectNode body) {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.clientDeadlineMs());
        if ("init".equals(type)) {
            onInit(src, body);
            return;
        }
        WriteRouter r = router;
        if (r == null) {
            io.reply(src, body, error(ERROR_TEMPORARILY_UNAVAILABLE, "node not initialised"));
            return;
        }
        try {
            switch (type) {
                case "submit" -> r.onSubmit(src, body);
                case "send" -> send(body, deadlineNs).thenAccept(reply -> io.reply(src, body, reply));
                case "poll" -> io.reply(src, body, poll(body));
                case "commit_offsets" -> commitOffsets(body, deadlineNs).thenAccept(reply -> io.reply(src, body,
                        reply));
                case "list_committed_offsets" -> io.reply(src, body, listCommittedOffsets(body));
                default -> io.reply(src, body, error(ERROR_NOT_SUPPORTED, "unsupported request type " + type));
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("{} from {} failed", type, src, e);
            io.reply(src, body, error(ERROR_CRASH, type + " failed: " + e));
        }
    }

    private void onInit(String src, ObjectNode body) {
        String nodeId = body.path("node_id").asText();
        List<String> nodeIds = new ArrayList<>();
        body.path("node_ids").forEach(id -> nodeIds.add(id.asText()));
        io.setNodeId(nodeId);
        try {
            NodeStorage.Location storage = NodeStorage.create(nodeId, config.storageDir());
            // A restarted process must not take a reply meant for its predecessor (still in flight on Maelstrom's
            // network) as the reply to its own request with the same msg_id: each incarnation numbers from its own
            // base.
            io.startMsgIdsAt(MaelstromIo.firstMsgId(storage.incarnation()));
            ReplicatedPartitions g = switch (config.raftEngine()) {
                case RATIS -> new PartitionGroups(nodeId, nodeIds, config, transport, storage.raftDir());
                case CAIRN -> new CoreRaftGroups(nodeId, nodeIds, config, io,
                        storage.raftDir().toPath().resolve("wal"));
            };
            g.start();
            groups = g;
            router = new WriteRouter(g, io, System::nanoTime);
            LOG.info("{} initialised: {} partitions over {}, Raft storage {} (incarnation {})", nodeId,
                    config.partitions(), nodeIds, storage.raftDir(), storage.incarnation());
            // Maelstrom's 10 s for init_ok start when it spawns the process; a loaded host spends seconds of
            // them starting JVMs, so the wait for leaders also ends a fixed time after this JVM started.
            long sinceStartMs = ManagementFactory.getRuntimeMXBean().getUptime();
            long waitMs = Math.max(0, Math.min(INIT_LEADER_WAIT_MS, INIT_OK_BY_UPTIME_MS - sinceStartMs));
            replyInitOkOnceLeadersKnown(src, body, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs));
        } catch (IOException | RuntimeException e) {
            LOG.error("init failed", e);
            io.reply(src, body, error(ERROR_CRASH, "init failed: " + e));
        }
    }

    /**
     * Answers init once every partition group has elected a leader, or at {@code deadlineNs}: client requests
     * would otherwise spend the first election timeout waiting. Requests arriving meanwhile are served already.
     */
    private void replyInitOkOnceLeadersKnown(String src, ObjectNode body, long deadlineNs) {
        boolean allKnown = true;
        for (int p = 0; p < config.partitions() && allKnown; p++) {
            allKnown = groups.leadership(p).leaderId() != null;
        }
        if (allKnown || System.nanoTime() >= deadlineNs) {
            long uptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
            long warmUpMs = Math.min(config.warmUpMs(), WARM_UP_END_BY_UPTIME_MS - uptimeMs);
            if (!allKnown || warmUpMs <= 0) {
                replyInitOk(src, body, allKnown, uptimeMs, null);
                return;
            }
            new WarmUp(this, clientPool, System::nanoTime, io.nodeId(), config.partitions(), this::partitionOf)
                    .run(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(warmUpMs))
                    .thenAccept(warmUp -> replyInitOk(src, body, true, uptimeMs, warmUp));
            return;
        }
        io.timer().schedule(() -> replyInitOkOnceLeadersKnown(src, body, deadlineNs), INIT_LEADER_POLL_MS,
                TimeUnit.MILLISECONDS);
    }

    private void replyInitOk(String src, ObjectNode body, boolean allLeadersKnown, long readyUptimeMs,
            WarmUp.Outcome warmUp) {
        io.reply(src, body, MAPPER.createObjectNode().put("type", "init_ok"));
        // Issue 22: start-up time, process start to init_ok, on stderr for every run (the JVM's uptime counts from
        // its own start, a few milliseconds after the process's); ready = groups started and leaders known.
        LOG.info("init_ok {} ms after the JVM started, ready after {} ms ({} leaders known); warm-up: {}",
                ManagementFactory.getRuntimeMXBean().getUptime(), readyUptimeMs, allLeadersKnown ? "all" : "not all",
                warmUp == null ? "none" : warmUp.requests() + " requests (" + warmUp.errors() + " failed) in "
                        + warmUp.elapsedMs() + " ms");
    }

    static ObjectNode error(int code, String text) {
        return MAPPER.createObjectNode().put("type", "error").put("code", code).put("text", text);
    }

    int partitionOf(String key) {
        return Math.floorMod(key.hashCode(), config.partitions());
    }

    /** The reply to a {@code send}, once its append is applied or has failed. */
    @Override
    public CompletableFuture<ObjectNode> send(ObjectNode body, long deadlineNs) throws IOException {
        String key = body.path("key").asText();
        byte[] value = MAPPER.writeValueAsBytes(body.get("msg"));
        long nowMs = System.currentTimeMillis();
        ByteBuffer batch = new RecordBatchBuilder(CompressionType.NONE)
                .append(nowMs, key.getBytes(StandardCharsets.UTF_8), value).build();
        byte[] command = bytes(CommandCodec.encode(new Command.Append(batch, nowMs)));
        int p = partitionOf(key);
        if (config.unsafeAckBeforeCommit()) {
            OptionalLong predicted = router.unsafeAckBeforeCommit(p, command);
            if (predicted.isPresent()) {
                return CompletableFuture.completedFuture(MAPPER.createObjectNode().put("type", "send_ok")
                        .put("offset", predicted.getAsLong()));
            }
        }
        return router.submit(p, command, deadlineNs).thenApply(outcome -> {
            if (outcome instanceof WriteOutcome.Applied applied && applied.result() instanceof Result.Appended a) {
                return MAPPER.createObjectNode().put("type", "send_ok").put("offset", a.baseOffset());
            }
            return failure(outcome);
        });
    }

    /** The error for a write that did not come back applied: 11 only when it certainly did not happen. */
    private static ObjectNode failure(WriteOutcome outcome) {
        if (outcome instanceof WriteOutcome.NotDone notDone) {
            return error(ERROR_TEMPORARILY_UNAVAILABLE, notDone.reason());
        }
        if (outcome instanceof WriteOutcome.Applied applied && applied.result() instanceof Result.Rejected r) {
            // Applied as a rejection: nothing was written, on any replica.
            return error(ERROR_TEMPORARILY_UNAVAILABLE, "rejected: " + r.error() + " " + r.message());
        }
        return error(ERROR_CRASH, outcome.toString());
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** The reply to a {@code poll}, read from this node's applied state. */
    @Override
    public ObjectNode poll(ObjectNode body) throws IOException {
        ObjectNode reply = MAPPER.createObjectNode().put("type", "poll_ok");
        ObjectNode msgs = reply.putObject("msgs");
        for (Map.Entry<String, JsonNode> entry : body.path("offsets").properties()) {
            Partition partition = groups.partition(partitionOf(entry.getKey()));
            if (partition == null) {
                continue;
            }
            List<PollReader.Message> messages = readers[partitionOf(entry.getKey())].read(partition, entry.getKey(),
                    entry.getValue().asLong());
            if (messages.isEmpty()) {
                continue;
            }
            ArrayNode pairs = msgs.putArray(entry.getKey());
            for (PollReader.Message message : messages) {
                pairs.addArray().add(message.offset()).add(MAPPER.readTree(message.value()));
            }
        }
        return reply;
    }

    /** The reply to a {@code commit_offsets}, once every key's commit is applied or one has failed. */
    @Override
    public CompletableFuture<ObjectNode> commitOffsets(ObjectNode body, long deadlineNs) {
        List<CompletableFuture<WriteOutcome>> commits = new ArrayList<>();
        long nowMs = System.currentTimeMillis();
        for (Map.Entry<String, JsonNode> entry : body.path("offsets").properties()) {
            Command.CommitOffset commit = new Command.CommitOffset(GROUP_PREFIX + entry.getKey(),
                    entry.getValue().asLong(), -1, "", nowMs);
            commits.add(router.submit(partitionOf(entry.getKey()), bytes(CommandCodec.encode(commit)), deadlineNs));
        }
        return CompletableFuture.allOf(commits.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            boolean allApplied = true;
            boolean anyMaybeApplied = false;
            WriteOutcome firstFailure = null;
            for (CompletableFuture<WriteOutcome> commit : commits) {
                WriteOutcome outcome = commit.join();
                boolean applied = outcome instanceof WriteOutcome.Applied a
                        && a.result() instanceof Result.OffsetCommitted;
                allApplied &= applied;
                anyMaybeApplied |= applied || outcome instanceof WriteOutcome.Unknown;
                if (!applied && firstFailure == null) {
                    firstFailure = outcome;
                }
            }
            if (allApplied) {
                return MAPPER.createObjectNode().put("type", "commit_offsets_ok");
            }
            if (anyMaybeApplied) {
                return error(ERROR_CRASH, "some offsets may be committed: " + firstFailure);
            }
            return failure(firstFailure);
        });
    }

    /** The reply to a {@code list_committed_offsets}, from this node's applied state. */
    @Override
    public ObjectNode listCommittedOffsets(ObjectNode body) {
        ObjectNode reply = MAPPER.createObjectNode().put("type", "list_committed_offsets_ok");
        ObjectNode offsets = reply.putObject("offsets");
        for (JsonNode keyNode : body.path("keys")) {
            String key = keyNode.asText();
            Partition partition = groups.partition(partitionOf(key));
            if (partition == null) {
                continue;
            }
            Optional<CommittedOffset> committed = partition.committedOffset(GROUP_PREFIX + key);
            committed.ifPresent(c -> offsets.put(key, c.offset()));
        }
        return reply;
    }
}
