package dev.cairn.raft;

/**
 * What a replica must persist before it sends the messages of the same {@link Ready} (Raft figure 2's persistent
 * state, with the commit index, which lets a restarted replica apply up to it again without waiting for a leader).
 *
 * @param term the latest term this replica has seen
 * @param votedFor the replica it voted for in {@code term}, or {@link RaftNode#NONE}
 * @param commitIndex the highest index known committed
 */
public record HardState(long term, int votedFor, long commitIndex) {

    public static final HardState INITIAL = new HardState(0, RaftNode.NONE, 0);

    public HardState {
        Invariant.check(term >= 0, "term %s is negative", term);
        Invariant.check(commitIndex >= 0, "commit index %s is negative", commitIndex);
    }
}
