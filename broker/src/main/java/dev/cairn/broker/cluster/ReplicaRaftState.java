package dev.cairn.broker.cluster;

/**
 * One replica's standing in its partition group, as this broker sees it (for operators and tests).
 *
 * @param raftLogStartIndex the first entry still in this replica's Raft log (earlier ones were purged behind a
 *                          snapshot)
 * @param lastAppliedIndex the last entry applied to the partition
 * @param logStartOffset the partition log's first offset
 * @param logEndOffset the partition log's end offset
 * @param snapshotsInstalled how many snapshots this replica received from a leader since it started
 */
public record ReplicaRaftState(long raftLogStartIndex, long lastAppliedIndex, long logStartOffset, long logEndOffset,
        int snapshotsInstalled) {
}
