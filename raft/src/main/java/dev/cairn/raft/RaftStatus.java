package dev.cairn.raft;

/**
 * A replica's view of its group at one moment, for the runtime, metrics and tests.
 *
 * @param leader the replica it follows (itself when leading), or {@link RaftNode#NONE}
 * @param quiesced the group is quiet: this replica sends no heartbeats and runs no election timer
 */
public record RaftStatus(int id, Role role, int leader, long term, long commitIndex, long lastIndex,
        boolean quiesced) {
}
