package dev.cairn.broker.config;

import static dev.cairn.broker.config.ConfigKey.stringKey;

import java.util.List;
import java.util.Locale;

/**
 * Which Raft implementation runs the partitions' groups. {@code cairn} (the default): Cairn's own multi-Raft engine
 * (docs/multi-raft.md), a fixed set of event loops and one write-ahead log per loop whatever the partition count, its
 * frames on {@code raft.engine.listener}. {@code ratis}: Apache Ratis, a server thread set and a log per group. The
 * metadata group stays on Ratis either way. The choice is recorded in the data directory at first start; later a
 * directory keeps its engine unless another is set explicitly, which is refused (the offsets store counts Raft
 * indexes of one engine).
 */
public final class RaftEngineKeys {
    /** The engines a broker can run partitions on. */
    public enum Engine {
        RATIS, CAIRN;

        /** The name as {@code raft.engine} spells it. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final ConfigKey<Engine> RAFT_ENGINE = new ConfigKey<>("raft.engine", "cairn",
            "Raft implementation of the partitions' groups: cairn (Cairn's multi-Raft engine: shared event loops and "
            + "logs, mutual TLS with raft.ssl.*, reassignments one voter at a time; see docs/multi-raft.md) or ratis "
            + "(Apache Ratis, a thread set and log per partition). Recorded in the data directory at first start: "
            + "unset, a directory keeps its engine (one written while ratis was the default stays ratis); set to the "
            + "other, refused. Set it alike on every broker of a cluster.", ConfigKey.Kind.STRING,
            RaftEngineKeys::parseEngine);
    public static final ConfigKey<String> RAFT_ENGINE_LISTENER = stringKey("raft.engine.listener", "",
            "host:port where the cairn engine takes Raft frames from other brokers; empty: raft.listener's host, "
            + "any free port (registered in metadata). Unused with raft.engine=ratis.");

    /**
     * The largest record batch the cairn engine carries: an entry travels whole in one frame ({@code
     * FrameCodec.FRAME_BYTES_MAX}, 32 MiB), and an entry that carries its batch (a transactional one, or an append
     * placed behind one) is logged whole in one write-ahead log record ({@code RaftWal.RECORD_BYTES_MAX}, 16 MiB). So
     * {@code message.max.bytes}, and a topic's {@code max.message.bytes}, stop under the smaller, leaving room for the
     * command's header and the frame's (RaftEngineKeysTest checks it against both).
     */
    public static final int ENGINE_BATCH_BYTES_MAX = 16 * 1024 * 1024 - 64 * 1024;

    public static final List<ConfigKey<?>> KEYS = List.of(RAFT_ENGINE, RAFT_ENGINE_LISTENER);

    private RaftEngineKeys() {
    }

    private static Engine parseEngine(String text) {
        for (Engine engine : Engine.values()) {
            if (engine.configName().equals(text)) {
                return engine;
            }
        }
        throw new ConfigException(text + " is neither ratis nor cairn");
    }

    /** What {@code raft.engine=cairn} cannot run with yet, each naming the keys involved; empty with ratis. */
    static List<String> problems(BrokerConfig config) {
        if (RAFT_ENGINE.parse(config.text(RAFT_ENGINE)) != Engine.CAIRN) {
            return List.of();
        }
        List<String> problems = new java.util.ArrayList<>();
        if (config.nodeId() == Integer.MAX_VALUE) {
            problems.add("raft.engine=cairn numbers replicas node.id+1, so node.id must be below " + Integer.MAX_VALUE);
        }
        if (config.messageMaxBytes() > ENGINE_BATCH_BYTES_MAX) {
            problems.add("message.max.bytes=" + config.messageMaxBytes() + " exceeds " + ENGINE_BATCH_BYTES_MAX
                    + ", the largest batch one raft.engine=cairn frame carries");
        }
        String listener = config.text(RAFT_ENGINE_LISTENER);
        if (!listener.isEmpty()) {
            try {
                HostPort.parse(listener);
            } catch (ConfigException e) {
                problems.add("raft.engine.listener=" + listener + ": " + e.getMessage());
            }
        }
        return problems;
    }
}
