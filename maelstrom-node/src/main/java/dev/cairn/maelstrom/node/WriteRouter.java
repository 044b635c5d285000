package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a partition command committed by the partition's Raft leader before a deadline, and says honestly what
 * happened (style.md point 6, maelstrom.md 2.3).
 *
 * <p>On each attempt: if this node leads the group (and the leader is ready), the command is submitted locally;
 * if another node leads, it is forwarded there as a {@code submit} message, and that node submits it only if it
 * still leads, answering {@code not_leader} otherwise; with no leader known, the router waits
 * {@link #RETRY_BACKOFF_MS} and looks again. Forwarding is one hop: a node never forwards a forwarded command.
 *
 * <p>Definiteness: a command that no leader has taken ({@code not_leader}, no leader known until the deadline)
 * is {@link WriteOutcome.NotDone}. Once a leader may have appended it to its Raft log, every failure is
 * {@link WriteOutcome.Unknown}: a leader that steps down answers its pending requests with NotLeaderException
 * although the entry may still commit under the next leader, and a lost forward or reply says nothing. Nothing
 * is retried after that point, since a retried send could be appended twice.
 *
 * <pre>
 *   {"type":"submit", "partition":p, "command":&lt;base64 CommandCodec bytes&gt;, "timeout_ms":N}
 *     -&gt; {"type":"submit_ok", "result":&lt;base64 CommandCodec result&gt;}
 *      | {"type":"not_leader"}                        (definitely not submitted)
 *      | {"type":"submit_failed", "text":"..."}       (submitted; outcome unknown)
 * </pre>
 */
public final class WriteRouter {
    private static final Logger LOG = LoggerFactory.getLogger(WriteRouter.class);

    /** Wait between attempts while no leader is known or the leader was not ready. */
    static final long RETRY_BACKOFF_MS = 50;
    /** An attempt needs at least this much of the deadline left; otherwise the command is given up (NotDone). */
    static final long ATTEMPT_MS_MIN = 100;

    private final ReplicatedPartitions groups;
    private final MaelstromIo io;
    private final LongSupplier nanoClock;
    private final Object[] unsafeLocks;
    private final long[] unsafeNextOffset;

    public WriteRouter(ReplicatedPartitions groups, MaelstromIo io, LongSupplier nanoClock) {
        this.groups = groups;
        this.io = io;
        this.nanoClock = nanoClock;
        this.unsafeLocks = new Object[groups.partitionCount()];
        this.unsafeNextOffset = new long[groups.partitionCount()];
        for (int p = 0; p < unsafeLocks.length; p++) {
            unsafeLocks[p] = new Object();
        }
    }

    /** Routes {@code command} to partition {@code p}'s leader; completes (never exceptionally) by the deadline. */
    public CompletableFuture<WriteOutcome> submit(int p, byte[] command, long deadlineNs) {
        CompletableFuture<WriteOutcome> outcome = new CompletableFuture<>();
        attempt(p, command, deadlineNs, outcome);
        return outcome;
    }

    private long remainingMs(long deadlineNs) {
        return TimeUnit.NANOSECONDS.toMillis(deadlineNs - nanoClock.getAsLong());
    }

    private void attempt(int p, byte[] command, long deadlineNs, CompletableFuture<WriteOutcome> outcome) {
        long remainingMs = remainingMs(deadlineNs);
        if (remainingMs < ATTEMPT_MS_MIN) {
            outcome.complete(new WriteOutcome.NotDone("no leader of partition " + p + " took it in time"));
            return;
        }
        ReplicatedPartitions.Leadership leadership = groups.leadership(p);
        if (leadership.leadsAndReady()) {
            submitLocal(p, command, remainingMs).thenAccept(outcome::complete);
            return;
        }
        String leader = leadership.leaderId();
        if (leader == null || leader.equals(groups.selfId())) {
            retryLater(p, command, deadlineNs, outcome);
            return;
        }
        ObjectNode body = MaelstromIo.mapper().createObjectNode().put("type", "submit").put("partition", p)
                .put("command", Base64.getEncoder().encodeToString(command)).put("timeout_ms", remainingMs);
        io.rpc(leader, body, remainingMs).whenComplete((reply, error) -> {
            if (error != null) {
                outcome.complete(new WriteOutcome.Unknown("forward to " + leader + ": " + error.getMessage()));
                return;
            }
            switch (reply.path("type").asText()) {
                case "submit_ok" -> outcome.complete(decode(Base64.getDecoder().decode(reply.path("result").asText())));
                case "not_leader" -> retryLater(p, command, deadlineNs, outcome);
                default -> outcome.complete(new WriteOutcome.Unknown(leader + ": " + reply.path("text").asText()));
            }
        });
    }

    private void retryLater(int p, byte[] command, long deadlineNs, CompletableFuture<WriteOutcome> outcome) {
        io.timer().schedule(() -> attempt(p, command, deadlineNs, outcome), RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<WriteOutcome> submitLocal(int p, byte[] command, long timeoutMs) {
        return groups.submitLocal(p, command)
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((result, error) -> {
                    // A failure includes a leader that stepped down with the entry in its log: it may still
                    // commit under the next leader, so the outcome is unknown.
                    return error != null ? new WriteOutcome.Unknown("partition " + p + ": " + error) : decode(result);
                });
    }

    private static WriteOutcome decode(byte[] result) {
        try {
            return new WriteOutcome.Applied(CommandCodec.decodeResult(ByteBuffer.wrap(result)));
        } catch (CommandFormatException e) {
            return new WriteOutcome.Unknown("unreadable result: " + e.getMessage());
        }
    }

    /** Handles a {@code submit} forwarded by another node: submits only while this node leads the group. */
    public void onSubmit(String src, ObjectNode body) {
        int p = body.path("partition").asInt(-1);
        if (p < 0 || p >= groups.partitionCount()) {
            io.reply(src, body, MaelstromIo.mapper().createObjectNode().put("type", "not_leader"));
            return;
        }
        if (!groups.leadership(p).leadsAndReady()) {
            io.reply(src, body, MaelstromIo.mapper().createObjectNode().put("type", "not_leader"));
            return;
        }
        byte[] command = Base64.getDecoder().decode(body.path("command").asText());
        long timeoutMs = Math.max(1, body.path("timeout_ms").asLong(ATTEMPT_MS_MIN));
        submitLocal(p, command, timeoutMs).thenAccept(outcome -> {
            ObjectNode reply = MaelstromIo.mapper().createObjectNode();
            if (outcome instanceof WriteOutcome.Applied applied) {
                reply.put("type", "submit_ok").put("result",
                        Base64.getEncoder().encodeToString(toBytes(CommandCodec.encode(applied.result()))));
            } else {
                reply.put("type", "submit_failed").put("text", outcome.toString());
            }
            io.reply(src, body, reply);
        });
    }

    private static byte[] toBytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /**
     * The deliberately unsafe path ({@code --unsafe-ack-before-commit}): when this node leads the partition, it
     * predicts the offset the append will get, submits it, and returns the prediction at once, before any
     * replica but its own log has it. A leader cut off by a partition thus acknowledges writes that the next
     * leader never sees. Returns empty when this node does not lead (the caller then takes the safe path).
     */
    public OptionalLong unsafeAckBeforeCommit(int p, byte[] command) {
        if (!groups.leadership(p).leadsAndReady() || groups.partition(p) == null) {
            return OptionalLong.empty();
        }
        synchronized (unsafeLocks[p]) {
            long predicted = Math.max(groups.partition(p).highWatermark(), unsafeNextOffset[p]);
            unsafeNextOffset[p] = predicted + 1;
            groups.submitLocal(p, command).whenComplete((reply, error) -> LOG.debug("unsafe append to {}: {} {}",
                    p, reply, error));
            return OptionalLong.of(predicted);
        }
    }
}
