package dev.cairn.raft.runtime;

import java.util.Map;

/**
 * What one replica of a group knows of its followers' logs ({@link RaftEngine#replication}), taken on the group's
 * loop at one moment. A follower whose match index is the leader's {@code lastIndex} holds every entry; a quiet group
 * has every follower not reported down there (it went quiet only once they were).
 *
 * @param leading whether this replica leads the group; when it does not, {@code matchIndex} is empty and the other
 *     fields are this replica's own
 * @param term this replica's current term
 * @param commitIndex the highest index this replica knows committed
 * @param lastIndex the last index of this replica's log
 * @param matchIndex as leader, for each other voter and each replica it catches up ({@link RaftEngine#catchUp}),
 *     the highest index it is known to hold; 0 until it first answers a new leader. Empty when {@code leading} is
 *     false. Unmodifiable
 */
public record GroupReplication(boolean leading, long term, long commitIndex, long lastIndex,
        Map<Integer, Long> matchIndex) {

    public GroupReplication {
        matchIndex = Map.copyOf(matchIndex);
    }
}
