package dev.cairn.broker.offsets;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Committed consumer offsets, keyed by (group, topic, partition), written by the partition groups' Raft
 * state machines. Each {@link #commit} stores its offsets in one atomic write together with the partition
 * group's applied Raft index, so that a replay after a restart skips commits that are already stored
 * ({@link #commit} returns false for them). Commit times come from the caller (stamped on the leader before
 * replication); no implementation reads a clock.
 *
 * <p>Implementations are thread-safe: several partition groups apply concurrently, and OffsetFetch reads run
 * on handler threads. Everything here can be rebuilt by replaying the partition groups' Raft logs.
 */
public interface OffsetStore extends AutoCloseable {
    /** The applied Raft index of a partition group that has stored nothing yet. */
    long NO_RAFT_INDEX = -1;

    /**
     * Stores the commits of one Raft entry of the partition group {@code (topic, partition)} atomically with
     * {@code raftIndex} as that group's applied index. Returns false, storing nothing, when {@code raftIndex}
     * is not above the stored applied index (a replay of an entry already applied).
     */
    boolean commit(String topic, int partition, long raftIndex, Map<String, CommittedOffset> offsetsByGroup);

    /**
     * Deletes {@code group}'s committed offset for the partition group {@code (topic, partition)} atomically with
     * {@code raftIndex} as that group's applied index (DeleteGroups, OffsetDelete). Returns false, changing nothing,
     * when {@code raftIndex} is not above the stored applied index (a replay).
     */
    boolean delete(String topic, int partition, long raftIndex, String group);

    /** The Raft index of the last entry stored for the partition group, or {@link #NO_RAFT_INDEX}. */
    long appliedRaftIndex(String topic, int partition);

    Optional<CommittedOffset> fetch(String group, String topic, int partition);

    /** Every group's committed offset for one partition. */
    Map<String, CommittedOffset> fetchAll(String topic, int partition);

    /**
     * Replaces everything stored for the partition group {@code (topic, partition)} with {@code offsetsByGroup}
     * and sets its applied Raft index to {@code raftIndex}, in one atomic write. This is how one partition
     * group installs a snapshot without touching the other groups that share the store.
     */
    void replacePartition(String topic, int partition, long raftIndex, Map<String, CommittedOffset> offsetsByGroup);

    /**
     * Forgets the partition group {@code (topic, partition)}: every group's committed offset and its applied Raft
     * index, in one atomic write. Called once its replica is gone from this broker (topic deleted, replica moved
     * away), after its group stopped applying: a topic created again under the same name is a new partition group
     * whose Raft indexes start again from the beginning, and starts with no committed offsets (as in Kafka).
     */
    default void removePartition(String topic, int partition) {
        replacePartition(topic, partition, NO_RAFT_INDEX, Map.of());
    }

    /**
     * Writes a consistent copy of the whole store into {@code targetDirectory}, which must not exist yet
     * (snapshots). The copy can be loaded with {@link #restore}.
     */
    void checkpoint(Path targetDirectory);

    /** Replaces the whole store with a copy made by {@link #checkpoint} (snapshot installation). */
    void restore(Path checkpointDirectory);

    @Override
    void close();

    /**
     * One committed offset.
     *
     * @param offset       the next offset the group will consume
     * @param metadata     the client's opaque string; null when the client sent none
     * @param commitTimeMs the time the leader stamped on the commit before replication
     * @param leaderEpoch  the leader epoch of the record at {@code offset - 1} as the client saw it (clients use it to
     *                     detect log truncation after a leader change); -1 when the client sent none
     */
    record CommittedOffset(long offset, String metadata, long commitTimeMs, int leaderEpoch) {
        /** No leader epoch: what clients before OffsetCommit v6 commit. */
        public static final int NO_LEADER_EPOCH = -1;

        public CommittedOffset(long offset, String metadata, long commitTimeMs) {
            this(offset, metadata, commitTimeMs, NO_LEADER_EPOCH);
        }
    }
}
