package dev.cairn.broker.raft;

import dev.cairn.broker.config.RaftTlsSettings;
import java.io.File;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Every Ratis setting Cairn changes from Ratis's defaults, with the reason, in one place (docs/ratis.md B.3).
 * Anything not named here is Ratis 3.3.0's default. {@code tls} is null for plaintext Raft traffic.
 */
public record RatisSettings(
        File storageDir,
        String host,
        int port,
        TimeDuration electionTimeoutMin,
        TimeDuration electionTimeoutMax,
        TimeDuration requestTimeout,
        long snapshotAutoTriggerThreshold,
        long snapshotIntervalBytes,
        int purgeGap,
        SizeInBytes logSegmentSizeMax,
        SizeInBytes logPreallocatedSize,
        SizeInBytes logWriteBufferSize,
        boolean useMemoryLog,
        boolean fsyncBeforeAck,
        int submitThreads,
        GrpcTlsConfig tls) {

    /** Brokers on shared hosts see GC and scheduling pauses: 1-2 s avoids needless elections (RATIS-1149). */
    public static final TimeDuration ELECTION_TIMEOUT_MIN_DEFAULT = TimeDuration.valueOf(1000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    public static final TimeDuration ELECTION_TIMEOUT_MAX_DEFAULT = TimeDuration.valueOf(2000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    /**
     * A group's first election after it starts (a new partition, or every group after a restart) waits only this
     * long: a new partition had no leader for 1-2 s, and Sarama's default producer gave up on its first records after
     * 3 retries of LEADER_NOT_AVAILABLE. A replica that starts beside a live leader hears from it or is refused by
     * pre-vote, so the short first wait costs no needless term change; later elections keep the 1-2 s timeouts.
     */
    public static final TimeDuration FIRST_ELECTION_TIMEOUT_MIN = TimeDuration.valueOf(50,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    public static final TimeDuration FIRST_ELECTION_TIMEOUT_MAX = TimeDuration.valueOf(150,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    /** Threads that hand commands to Raft groups (SubmitLanes), Kafka's {@code num.io.threads} default. */
    public static final int SUBMIT_THREADS_DEFAULT = 8;
    /** How long a follower RPC may take before it counts as failed. */
    public static final TimeDuration REQUEST_TIMEOUT_DEFAULT = TimeDuration.valueOf(3000,
            java.util.concurrent.TimeUnit.MILLISECONDS);
    /** Snapshot every this many applied entries so the Raft log is purged (no snapshot, no purge). */
    public static final long SNAPSHOT_AUTO_TRIGGER_THRESHOLD_DEFAULT = 10_000;
    /**
     * Snapshot a partition group also once this many bytes of entries were applied since its last snapshot
     * ({@link SnapshotByBytes}): with large batches the entry count alone let a group's Raft log reach gigabytes.
     */
    public static final long SNAPSHOT_INTERVAL_BYTES_DEFAULT = 64L * 1024 * 1024;
    /**
     * Purge the Raft log in steps of this many entries behind a snapshot. Small, so that a snapshot taken after a
     * few large entries (by bytes) is followed by a purge; Ratis's default of 1024 entries kept up to a gigabyte of
     * 1 MiB batches after every snapshot. A purge only deletes closed Raft log segments, so it costs little.
     */
    public static final int PURGE_GAP_DEFAULT = 16;
    /** Per-group Raft log segments: small, because a broker hosts many groups. */
    public static final SizeInBytes LOG_SEGMENT_SIZE_MAX_DEFAULT = SizeInBytes.valueOf("8MB");
    public static final SizeInBytes LOG_PREALLOCATED_SIZE_DEFAULT = SizeInBytes.valueOf("1MB");
    /**
     * Room in one Raft log entry beyond the record batch: the command header and Ratis's entry proto (term, index,
     * client and call ids, length prefixes). Well above the hundred-odd bytes used.
     */
    public static final int RAFT_ENTRY_OVERHEAD_BYTES = 4 * 1024;
    /** Ratis requires its write buffer to hold the largest entry plus a length prefix and a checksum. */
    private static final int WRITE_BUFFER_FRAMING_BYTES = 8;
    /** Kafka's {@code message.max.bytes} default (1 MiB of records plus the 12-byte log overhead). */
    private static final int KAFKA_MESSAGE_BYTES_DEFAULT = 1024 * 1024 + 12;
    /**
     * The Raft log write buffer, per group. Ratis refuses an entry larger than the appender's buffer limit
     * (RaftLogBase: "Log entry size exceeds the max buffer limit", the append fails), and the appender limit must
     * be at most this buffer less 8 bytes, so this buffer decides the largest record batch a partition can take;
     * see {@link #withBatchBytesMax}. It is direct memory held by every hosted group: Ratis's 8 MB default costs
     * too much with hundreds of groups.
     */
    public static final SizeInBytes LOG_WRITE_BUFFER_SIZE_DEFAULT = writeBufferFor(KAFKA_MESSAGE_BYTES_DEFAULT);
    /**
     * Snapshot installation streams segment files: chunks of about one AppendEntries batch keep each gRPC message well
     * inside the request timeout on a loaded host (Ratis's 16 MB chunks timed out here).
     */
    public static final SizeInBytes SNAPSHOT_CHUNK_BYTES_MAX = SizeInBytes.valueOf("1MB");

    /**
     * Closed Raft log segments whose entries a group keeps in heap (Ratis's default is 6, up to 200 MB, per group).
     * The cache serves followers that are slightly behind; older entries are read back from the segment file. With
     * the default a broker ran out of a 1 GiB heap after three 8-partition topics of 400 MB each (6 x 8 MB per
     * group); with 2 a busy group keeps at most about 3 segments (24 MB) in heap, the open one included.
     */
    public static final int LOG_SEGMENT_CACHE_NUM_MAX = 2;
    public static final SizeInBytes LOG_SEGMENT_CACHE_BYTES_MAX = SizeInBytes.valueOf("16MB");

    /** Ratis's own gRPC message limit, kept unless the largest entry needs more. */
    private static final SizeInBytes GRPC_MESSAGE_BYTES_MAX_DEFAULT = SizeInBytes.valueOf("64MB");

    private static SizeInBytes writeBufferFor(int batchBytesMax) {
        return SizeInBytes.valueOf((long) batchBytesMax + RAFT_ENTRY_OVERHEAD_BYTES + WRITE_BUFFER_FRAMING_BYTES);
    }

    public static RatisSettings defaults(File storageDir, String host, int port) {
        return new RatisSettings(storageDir, host, port, ELECTION_TIMEOUT_MIN_DEFAULT, ELECTION_TIMEOUT_MAX_DEFAULT,
                REQUEST_TIMEOUT_DEFAULT, SNAPSHOT_AUTO_TRIGGER_THRESHOLD_DEFAULT, SNAPSHOT_INTERVAL_BYTES_DEFAULT,
                PURGE_GAP_DEFAULT, LOG_SEGMENT_SIZE_MAX_DEFAULT, LOG_PREALLOCATED_SIZE_DEFAULT,
                LOG_WRITE_BUFFER_SIZE_DEFAULT, false,
                false, SUBMIT_THREADS_DEFAULT, null);
    }

    public RatisSettings withSnapshotThreshold(long threshold) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                threshold, snapshotIntervalBytes, purgeGap, logSegmentSizeMax, logPreallocatedSize, logWriteBufferSize,
                useMemoryLog, fsyncBeforeAck, submitThreads, tls);
    }

    /** Snapshots a partition group also every this many applied bytes (see {@link SnapshotByBytes}). */
    public RatisSettings withSnapshotIntervalBytes(long bytes) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                snapshotAutoTriggerThreshold, bytes, purgeGap, logSegmentSizeMax, logPreallocatedSize,
                logWriteBufferSize, useMemoryLog, fsyncBeforeAck, submitThreads, tls);
    }

    /**
     * Sizes the Raft log to carry a record batch of {@code batchBytesMax} (the broker's {@code message.max.bytes}):
     * the largest batch any topic can take. Costs about that much direct memory per hosted group.
     */
    public RatisSettings withBatchBytesMax(int batchBytesMax) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                snapshotAutoTriggerThreshold, snapshotIntervalBytes, purgeGap, logSegmentSizeMax, logPreallocatedSize,
                writeBufferFor(batchBytesMax), useMemoryLog, fsyncBeforeAck, submitThreads, tls);
    }

    /**
     * Whether an entry counts towards a majority only once fsynced ({@code true}: Ratis's default, what Kafka gives
     * with {@code flush.messages=1}), or once written to the operating system ({@code false}: what Kafka gives by
     * default, acks=all answered once the in-sync replicas have the record in their page cache). With {@code false}
     * Ratis still fsyncs each group write at once, on a thread of its own, so the acknowledgement does not wait for
     * it; a process crash loses nothing, a power failure of a majority at once can lose the last milliseconds.
     */
    public RatisSettings withFsyncBeforeAck(boolean fsync) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                snapshotAutoTriggerThreshold, snapshotIntervalBytes, purgeGap, logSegmentSizeMax, logPreallocatedSize,
                logWriteBufferSize, useMemoryLog, fsync, submitThreads, tls);
    }

    /** Sets the threads that hand commands to Raft groups, off the network threads (SubmitLanes). */
    public RatisSettings withSubmitThreads(int threads) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                snapshotAutoTriggerThreshold, snapshotIntervalBytes, purgeGap, logSegmentSizeMax, logPreallocatedSize,
                logWriteBufferSize, useMemoryLog, fsyncBeforeAck, threads, tls);
    }

    /**
     * Raft traffic over TLS with mutual authentication (raft.ssl.*), or plaintext when {@code tls} is empty. The
     * stores are read now ({@link RaftTls}), so that a bad one stops the start with a {@code ConfigException}.
     */
    public RatisSettings withTls(Optional<RaftTlsSettings> settings) {
        return new RatisSettings(storageDir, host, port, electionTimeoutMin, electionTimeoutMax, requestTimeout,
                snapshotAutoTriggerThreshold, snapshotIntervalBytes, purgeGap, logSegmentSizeMax, logPreallocatedSize,
                logWriteBufferSize, useMemoryLog, fsyncBeforeAck, submitThreads,
                settings.map(RaftTls::grpcConfig).orElse(null));
    }

    /**
     * What Ratis takes beside the properties, for the server and for every client: with TLS, one {@link
     * GrpcTlsConfig} for all of Ratis's gRPC channels (server, admin and client services, which share the Raft port,
     * and the connections this broker opens to its peers), mutual, so each end presents its certificate.
     */
    Parameters toParameters() {
        Parameters parameters = new Parameters();
        if (tls != null) {
            GrpcConfigKeys.TLS.setConf(parameters, tls);
        }
        return parameters;
    }

    RaftProperties toProperties() {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(properties, host);
        GrpcConfigKeys.Server.setPort(properties, port);
        RaftServerConfigKeys.setStorageDir(properties, List.of(storageDir));
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, electionTimeoutMin);
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, electionTimeoutMax);
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, FIRST_ELECTION_TIMEOUT_MIN);
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, FIRST_ELECTION_TIMEOUT_MAX);
        RaftServerConfigKeys.Rpc.setRequestTimeout(properties, requestTimeout);
        // A reassignment may add a majority of new voters at once (replication factor 1 to 3): Ratis catches new voters
        // up before the joint configuration commits, so the group stays available meanwhile.
        RaftServerConfigKeys.LeaderElection.setMemberMajorityAdd(properties, true);
        // RATIS-2235: composing append entries costs throughput; Ozone turns it off too (docs/ratis.md B.4).
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(properties, false);
        // Ratis appends an entry recording the commit index after each commit and replicates it: as many Raft entries
        // again as commands. Kept on in the broker: that entry is also what tells followers the new commit index
        // within a round trip; without it they learn it at the next heartbeat (~500 ms idle), and state read from
        // follower replicas (ListGroups' offsets-only groups, leadership transfer readiness) lagged that much
        // (KafkaToolsIT listed a deleted group). The Maelstrom node turns it off (no reads from followers' state).
        RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, true);
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, logSegmentSizeMax);
        RaftServerConfigKeys.Log.setPreallocatedSize(properties, logPreallocatedSize);
        RaftServerConfigKeys.Log.setWriteBufferSize(properties, logWriteBufferSize);
        // The largest entry Ratis accepts, and the bytes one AppendEntries RPC carries (a larger entry goes alone).
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties,
                SizeInBytes.valueOf(logWriteBufferSize.getSize() - WRITE_BUFFER_FRAMING_BYTES));
        RaftServerConfigKeys.Log.Appender.setSnapshotChunkSizeMax(properties, SNAPSHOT_CHUNK_BYTES_MAX);
        // A follower's AppendEntries carries at least one whole entry: gRPC must let the largest one through.
        GrpcConfigKeys.setMessageSizeMax(properties, SizeInBytes.valueOf(Math.max(GRPC_MESSAGE_BYTES_MAX_DEFAULT
                .getSize(), logWriteBufferSize.getSize() + RAFT_ENTRY_OVERHEAD_BYTES)));
        RaftServerConfigKeys.Log.setPurgeGap(properties, purgeGap);
        RaftServerConfigKeys.Log.setSegmentCacheNumMax(properties, LOG_SEGMENT_CACHE_NUM_MAX);
        RaftServerConfigKeys.Log.setSegmentCacheSizeMax(properties, LOG_SEGMENT_CACHE_BYTES_MAX);
        // Purge up to the snapshot even when a peer has not committed that far: a partition snapshot carries the
        // segment files, producer state and offsets, so a follower behind the purge point is caught up by
        // installing it, and a dead follower no longer pins the leader's Raft log on disk.
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        RaftServerConfigKeys.Log.setUseMemory(properties, useMemoryLog);
        // Unsafe flush: the flush index moves when the entries are written to the file, and the fsync runs after
        // it on the log's flush thread (withFsyncBeforeAck).
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, !fsyncBeforeAck);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, snapshotAutoTriggerThreshold);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
        return properties;
    }
}
