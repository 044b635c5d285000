package dev.cairn.broker.raft;

import java.io.File;
import java.util.List;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Every Ratis setting Cairn changes from Ratis's defaults, with the reason, in one place (docs/ratis.md B.3).
 * Anything not named here is Ratis 3.3.0's default.
 */
public record RatisSettings(
        File storageDir,
        String host,
        int port,
        TimeDuration electionTimeoutMin,
        TimeDuration electionTimeoutMax,
        TimeDuration requestTimeout,
        long snapshotAutoTriggerThreshold,
        int purgeGap,
        SizeInBytes logSegmentSizeMax,
        SizeInBytes logPreallocatedSize,
        SizeInBytes logWriteBufferSize,
        boolean useMemoryLog) {

    /** Brokers on shared hosts see GC and scheduling pauses: 1-2 s avoids needless elections (RATIS-1149). */
    public static final TimeDuration ELECTION_TIMEOUT_MIN_DEFAULT = TimeDuration.valueOf(1000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    public static final TimeDuration ELECTION_TIMEOUT_MAX_DEFAULT = TimeDuration.valueOf(2000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    /** How long a follower RPC may take before it counts as failed. */
    public static final TimeDuration REQUEST_TIMEOUT_DEFAULT = TimeDuration.valueOf(3000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    /** Snapshot every this many applied entries so the Raft log is purged (no snapshot, no purge). */
    public static final long SNAPSHOT_AUTO_TRIGGER_THRESHOLD_DEFAULT = 10_000;
    /** Purge the Raft log in steps of this many entries behind a snapshot. */
    public static final int PURGE_GAP_DEFAULT = 1024;
    /** Per-group Raft log segments: small, because a broker hosts many groups. */
    public static final SizeInBytes LOG_SEGMENT_SIZE_MAX_DEFAULT = SizeInBytes.valueOf("8MB");
    public static final SizeInBytes LOG_PREALLOCATED_SIZE_DEFAULT = SizeInBytes.valueOf("1MB");
    /**
     * Bytes per AppendEntries RPC (Ratis's 4 MB default). A larger single entry is still sent alone, so this
     * does not cap batch size; it bounds how much one follower RPC carries.
     */
    public static final SizeInBytes APPENDER_BUFFER_BYTES_DEFAULT = SizeInBytes.valueOf("1MB");
    /**
     * The Raft log write buffer, per group: Ratis requires at least the appender limit + 8 bytes. The 8 MB
     * default costs too much memory with hundreds of groups.
     */
    public static final SizeInBytes LOG_WRITE_BUFFER_SIZE_DEFAULT = SizeInBytes.valueOf(
            APPENDER_BUFFER_BYTES_DEFAULT.getSize() + 64 * 1024);

    public static RatisSettings defaults(File storageDir, String host, int port) {
        return new RatisSettings(storageDir, host, port, ELECTION_TIMEOUT_MIN_DEFAULT, ELECTION_TIMEOUT_MAX_DEFAULT,
                REQUEST_TIMEOUT_DEFAULT, SNAPSHOT_AUTO_TRIGGER_THRESHOLD_DEFAULT, PURGE_GAP_DEFAULT,
                LOG_SEGMENT_SIZE_MAX_DEFAULT, LOG_PREALLOCATED_SIZE_DEFAULT, LOG_WRITE_BUFFER_SIZE_DEFAULT, false);
    }

    public RatisSettings withSnapshotThreshold(long threshold) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                threshold, purgeGap, logSegmentSizeMax, logPreallocatedSize, logWriteBufferSize, useMemoryLog);
    }

    RaftProperties toProperties() {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(properties, host);
        GrpcConfigKeys.Server.setPort(properties, port);
        RaftServerConfigKeys.setStorageDir(properties, List.of(storageDir));
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, electionTimeoutMin);
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, electionTimeoutMax);
        RaftServerConfigKeys.Rpc.setRequestTimeout(properties, requestTimeout);
        // RATIS-2235: composing append entries costs throughput; Ozone turns it off too (docs/ratis.md B.4).
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(properties, false);
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, logSegmentSizeMax);
        RaftServerConfigKeys.Log.setPreallocatedSize(properties, logPreallocatedSize);
        RaftServerConfigKeys.Log.setWriteBufferSize(properties, logWriteBufferSize);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties, APPENDER_BUFFER_BYTES_DEFAULT);
        // Snapshot installation streams segment files: chunks the size of an AppendEntries batch keep each gRPC
        // message well inside the request timeout on a loaded host (Ratis's 16 MB chunks timed out here).
        RaftServerConfigKeys.Log.Appender.setSnapshotChunkSizeMax(properties, APPENDER_BUFFER_BYTES_DEFAULT);
        RaftServerConfigKeys.Log.setPurgeGap(properties, purgeGap);
        // Purge up to the snapshot even when a peer has not committed that far: a partition snapshot carries the
        // segment files, producer state and offsets, so a follower behind the purge point is caught up by
        // installing it, and a dead follower no longer pins the leader's Raft log on disk.
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        RaftServerConfigKeys.Log.setUseMemory(properties, useMemoryLog);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, snapshotAutoTriggerThreshold);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
        return properties;
    }
}
