package dev.cairn.raft;

/**
 * The bounds and timing of one replica, in ticks of the runtime's clock (the core reads no clock: the runtime calls
 * {@link RaftNode#tick()} at a fixed interval).
 *
 * @param electionTicks ticks without hearing from a leader before a follower starts a (pre-)vote; each replica
 *     waits a random time in [electionTicks, 2 x electionTicks)
 * @param heartbeatTicks ticks between a leader's heartbeats while the group is not quiet
 * @param quiesceAfterTicks ticks a leader waits with every follower caught up and nothing proposed before the group
 *     goes quiet: no heartbeats, no election timers, until the next proposal or a broker failure
 * @param appendBytesMax the entry bytes one append message carries at most (one larger entry goes alone)
 * @param inflightAppendsMax append messages a leader sends a follower before it waits for an answer
 * @param uncommittedEntriesMax entries a leader holds uncommitted before it refuses proposals
 */
public record RaftConfig(int electionTicks, int heartbeatTicks, int quiesceAfterTicks, int appendBytesMax,
        int inflightAppendsMax, int uncommittedEntriesMax) {

    public static final int ELECTION_TICKS_DEFAULT = 10;
    public static final int HEARTBEAT_TICKS_DEFAULT = 1;
    public static final int QUIESCE_AFTER_TICKS_DEFAULT = 20;
    public static final int APPEND_BYTES_MAX_DEFAULT = 1024 * 1024;
    public static final int INFLIGHT_APPENDS_MAX_DEFAULT = 64;
    public static final int UNCOMMITTED_ENTRIES_MAX_DEFAULT = 4096;

    public static RaftConfig defaults() {
        return new RaftConfig(ELECTION_TICKS_DEFAULT, HEARTBEAT_TICKS_DEFAULT, QUIESCE_AFTER_TICKS_DEFAULT,
                APPEND_BYTES_MAX_DEFAULT, INFLIGHT_APPENDS_MAX_DEFAULT, UNCOMMITTED_ENTRIES_MAX_DEFAULT);
    }

    public RaftConfig {
        require(heartbeatTicks >= 1, "heartbeatTicks (%s) must be at least 1", heartbeatTicks);
        require(electionTicks > heartbeatTicks, "electionTicks (%s) must exceed heartbeatTicks (%s)", electionTicks,
                heartbeatTicks);
        require(quiesceAfterTicks >= electionTicks, "quiesceAfterTicks (%s) must be at least electionTicks (%s)",
                quiesceAfterTicks, electionTicks);
        require(appendBytesMax >= 1, "appendBytesMax (%s) must be positive", appendBytesMax);
        require(inflightAppendsMax >= 1, "inflightAppendsMax (%s) must be at least 1", inflightAppendsMax);
        require(uncommittedEntriesMax >= 1, "uncommittedEntriesMax (%s) must be at least 1", uncommittedEntriesMax);
    }

    private static void require(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }
}
