package dev.cairn.maelstrom.node;

import java.nio.file.Path;
import java.util.List;

/**
 * The node's tunables, from its command line (the arguments after {@code --bin} under Maelstrom). Every timeout
 * is in milliseconds and every one has a named default here.
 *
 * @param partitions              partitions of the one topic, each a Raft group over all nodes
 * @param electionTimeoutMinMs    Raft election timeout range: 1-2 s, since the nodes are JVMs sharing a host
 *                                (GC pauses would cause needless elections; ratis.md B.2 rule 8)
 * @param electionTimeoutMaxMs    upper end of that range
 * @param raftRequestTimeoutMs    how long one node-to-node Raft request waits for its reply before it counts as
 *                                lost (Maelstrom partitions drop messages silently)
 * @param appenderBufferBytes     bytes of log entries per AppendEntries request (Maelstrom journals every message)
 * @param clientDeadlineMs        every client request is answered within this long of its arrival, with an
 *                                indefinite error when its outcome is still unknown (Maelstrom's client gives up
 *                                after 5 s and then closes the client; maelstrom.md 2.4)
 * @param unsafeAckBeforeCommit   deliberately broken: the leader acknowledges a send with a predicted offset
 *                                before Raft commits it (used only to show that the checker catches it:
 *                                {@code .ci/maelstrom.sh --broken} and {@code KafkaNodeIT})
 * @param storageDir              null: the Raft log lives in a directory of this process's own, which later nodes
 *                                remove once the process is gone (Maelstrom never restarts a node). Otherwise the
 *                                Raft log lives in {@code <storageDir>/<node id>}, kept and reused by a restarted
 *                                process ({@code faults/fault-node.py} kills and restarts nodes; NodeStorage)
 * @param warmUpMs                before init_ok, the node runs its own client requests (on keys Maelstrom never
 *                                uses) for up to this long, so that the workload's first seconds do not meet
 *                                interpreted code ({@link WarmUp}); 0: none
 * @param raftEngine              which Raft runs the partition groups: Apache Ratis (the default) or Cairn's own
 *                                core ({@code --raft cairn}, {@link CoreRaftGroups})
 */
public record NodeConfig(int partitions, long electionTimeoutMinMs, long electionTimeoutMaxMs,
        long raftRequestTimeoutMs, int appenderBufferBytes, long clientDeadlineMs, boolean unsafeAckBeforeCommit,
        Path storageDir, long warmUpMs, RaftEngine raftEngine) {

    /** The Raft implementation of the partition groups. */
    public enum RaftEngine { RATIS, CAIRN }

    public static final int PARTITIONS_DEFAULT = 2;
    public static final int PARTITIONS_MAX = 64;
    public static final long ELECTION_TIMEOUT_MIN_MS_DEFAULT = 1_000;
    public static final long ELECTION_TIMEOUT_MAX_MS_DEFAULT = 2_000;
    public static final long RAFT_REQUEST_TIMEOUT_MS_DEFAULT = 1_500;
    public static final int APPENDER_BUFFER_BYTES_DEFAULT = 32 * 1024;
    public static final long CLIENT_DEADLINE_MS_DEFAULT = 3_500;
    public static final long WARM_UP_MS_DEFAULT = 2_500;
    /** Longer warm-ups would eat into Maelstrom's 10 s for init_ok; the node also stops at a fixed uptime. */
    public static final long WARM_UP_MS_MAX = 5_000;
    /** Maelstrom's client RPC timeout; the deadline must leave room below it. */
    public static final long MAELSTROM_CLIENT_TIMEOUT_MS = 5_000;

    public static NodeConfig defaults() {
        return new NodeConfig(PARTITIONS_DEFAULT, ELECTION_TIMEOUT_MIN_MS_DEFAULT, ELECTION_TIMEOUT_MAX_MS_DEFAULT,
                RAFT_REQUEST_TIMEOUT_MS_DEFAULT, APPENDER_BUFFER_BYTES_DEFAULT, CLIENT_DEADLINE_MS_DEFAULT, false,
                null, WARM_UP_MS_DEFAULT, RaftEngine.RATIS);
    }

    /** Checks the values and how they relate; the message names both sides. */
    public NodeConfig validate() {
        require(partitions >= 1 && partitions <= PARTITIONS_MAX, "partitions " + partitions + " outside [1, "
                + PARTITIONS_MAX + "]");
        require(electionTimeoutMinMs > 0 && electionTimeoutMinMs < electionTimeoutMaxMs, "election timeout min "
                + electionTimeoutMinMs + " ms must be positive and below max " + electionTimeoutMaxMs + " ms");
        require(raftRequestTimeoutMs > 0, "raft request timeout " + raftRequestTimeoutMs + " ms must be positive");
        require(appenderBufferBytes >= 1024, "appender buffer " + appenderBufferBytes + " bytes is below 1024");
        require(clientDeadlineMs > 0 && clientDeadlineMs < MAELSTROM_CLIENT_TIMEOUT_MS, "client deadline "
                + clientDeadlineMs + " ms must be positive and below Maelstrom's client timeout "
                + MAELSTROM_CLIENT_TIMEOUT_MS + " ms");
        require(warmUpMs >= 0 && warmUpMs <= WARM_UP_MS_MAX, "warm-up " + warmUpMs + " ms outside [0, "
                + WARM_UP_MS_MAX + "]");
        return this;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * Parses {@code --partitions N}, {@code --election-timeout-ms MIN MAX}, {@code --raft-request-timeout-ms N},
     * {@code --appender-buffer-bytes N}, {@code --client-deadline-ms N}, {@code --unsafe-ack-before-commit},
     * {@code --storage-dir DIR}, {@code --warm-up-ms N} and {@code --raft ratis|cairn}.
     */
    public static NodeConfig parse(List<String> args) {
        NodeConfig d = defaults();
        int partitions = d.partitions;
        long electionMin = d.electionTimeoutMinMs;
        long electionMax = d.electionTimeoutMaxMs;
        long raftRequestTimeout = d.raftRequestTimeoutMs;
        int appenderBuffer = d.appenderBufferBytes;
        long clientDeadline = d.clientDeadlineMs;
        boolean unsafeAck = d.unsafeAckBeforeCommit;
        Path storage = d.storageDir;
        long warmUp = d.warmUpMs;
        RaftEngine engine = d.raftEngine;
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            switch (flag) {
                case "--partitions" -> partitions = intArg(args, ++i, flag);
                case "--election-timeout-ms" -> {
                    electionMin = intArg(args, ++i, flag);
                    electionMax = intArg(args, ++i, flag);
                }
                case "--raft-request-timeout-ms" -> raftRequestTimeout = intArg(args, ++i, flag);
                case "--appender-buffer-bytes" -> appenderBuffer = intArg(args, ++i, flag);
                case "--client-deadline-ms" -> clientDeadline = intArg(args, ++i, flag);
                case "--unsafe-ack-before-commit" -> unsafeAck = true;
                case "--storage-dir" -> storage = Path.of(stringArg(args, ++i, flag)).toAbsolutePath();
                case "--warm-up-ms" -> warmUp = intArg(args, ++i, flag);
                case "--raft" -> engine = engineArg(stringArg(args, ++i, flag));
                default -> throw new IllegalArgumentException("unknown argument " + flag);
            }
        }
        return new NodeConfig(partitions, electionMin, electionMax, raftRequestTimeout, appenderBuffer,
                clientDeadline, unsafeAck, storage, warmUp, engine).validate();
    }

    private static RaftEngine engineArg(String value) {
        return switch (value) {
            case "ratis" -> RaftEngine.RATIS;
            case "cairn" -> RaftEngine.CAIRN;
            default -> throw new IllegalArgumentException("--raft takes ratis or cairn, not " + value);
        };
    }

    private static String stringArg(List<String> args, int i, String flag) {
        if (i >= args.size() || args.get(i).isEmpty()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args.get(i);
    }

    private static int intArg(List<String> args, int i, String flag) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        try {
            return Integer.parseInt(args.get(i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs an integer, not " + args.get(i), e);
        }
    }
}
