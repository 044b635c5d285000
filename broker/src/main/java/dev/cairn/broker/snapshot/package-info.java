/**
 * A partition group's snapshots on disk ({@link dev.cairn.broker.snapshot.PartitionSnapshots}: a manifest and hard
 * links to the log's segments), the byte stream one of them is shipped as
 * ({@link dev.cairn.broker.snapshot.SnapshotStream}), and the writer that receives such a stream
 * ({@link dev.cairn.broker.snapshot.SnapshotRestore}). Free of any Raft implementation, so that Ratis (through
 * {@code broker.raft.PartitionSnapshotStorage}) and Cairn's own engine keep the same files.
 */
package dev.cairn.broker.snapshot;
