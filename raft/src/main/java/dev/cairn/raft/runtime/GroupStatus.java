package dev.cairn.raft.runtime;

import dev.cairn.raft.Role;
import java.util.List;

/**
 * One replica's view of its group, as its loop last published it ({@link RaftEngine#status}): the loop publishes a
 * new one after each Ready, compaction or snapshot restore that changed anything here. With apply threads the applied
 * index is read as they move it, and the commit index is then at least that (an applied entry is committed). Every
 * index is a lower bound of what the replica knows now.
 *
 * @param role this replica's role
 * @param leader the replica it follows (itself when leading), or {@link dev.cairn.raft.RaftNode#NONE}
 * @param term its current term
 * @param commitIndex the highest index it knows committed
 * @param appliedIndex the last entry applied to its state machine, or restored into it from a snapshot
 * @param snapshotIndex the last index compacted away (a state machine snapshot holds it): the log starts after it;
 *     0 when nothing was compacted
 * @param serving it leads and has applied through an entry of its own term, so its machine's reads are current
 *     (as {@link LeadershipListener} says)
 * @param voters the group's voters as this replica's log has them (the latest configuration, committed or not)
 * @param configurationPending that configuration is not known committed yet
 */
public record GroupStatus(Role role, int leader, long term, long commitIndex, long appliedIndex, long snapshotIndex,
        boolean serving, List<Integer> voters, boolean configurationPending) {

    /** This view with a later applied index (and a commit index at least that). */
    GroupStatus withApplied(long applied) {
        return new GroupStatus(role, leader, term, Math.max(commitIndex, applied), applied, snapshotIndex, serving,
                voters, configurationPending);
    }
}
