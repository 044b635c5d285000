package dev.cairn.broker.partition;

import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.util.Map;

/** The commands that change a partition's committed consumer offsets, applied to its {@link OffsetStore}. */
final class OffsetCommands {
    private OffsetCommands() {
    }

    /** Applies {@code command} if it is an offsets command (its result), else returns null. */
    static Result apply(OffsetStore offsets, String topic, int partition, long raftIndex, Command command) {
        if (command instanceof Command.CommitOffset commit) {
            // The store keeps this group's applied Raft index with the offsets, in one atomic write, and ignores
            // a replayed entry it already holds (it returns false then): either way the commit is in place.
            offsets.commit(topic, partition, raftIndex, Map.of(commit.groupId(),
                    new CommittedOffset(commit.offset(), commit.metadata(), commit.commitTimeMs(),
                            commit.leaderEpoch())));
            return Result.OFFSET_COMMITTED;
        }
        if (command instanceof Command.DeleteOffset delete) {
            boolean existed = offsets.fetch(delete.groupId(), topic, partition).isPresent();
            offsets.delete(topic, partition, raftIndex, delete.groupId());
            return new Result.OffsetDeleted(existed);
        }
        return null;
    }

    /**
     * Stores the offsets a transaction's commit made effective by this entry (its marker, or its end on a partition it
     * only committed offsets for); nothing when there are none.
     */
    static void commit(OffsetStore offsets, String topic, int partition, long raftIndex,
            Map<String, CommittedOffset> committed) {
        if (!committed.isEmpty()) {
            offsets.commit(topic, partition, raftIndex, committed);
        }
    }
}
