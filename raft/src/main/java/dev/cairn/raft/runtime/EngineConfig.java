package dev.cairn.raft.runtime;

import dev.cairn.raft.RaftConfig;

/**
 * How one engine runs its groups.
 *
 * @param selfId this engine's replica id in every group it holds (at least 1; the broker maps its id to it)
 * @param loops event loops, each a thread with its own groups and its own write-ahead log; fixed by the data
 *     directory at its first start (a later value is ignored, with a warning, so groups find their logs)
 * @param tickMs one tick of every group's clock (the core's election and heartbeat timeouts count ticks)
 * @param raft the core's settings for every group
 * @param fsync whether a loop forces its log to the device before the messages of what it wrote leave (true: an
 *     acknowledged entry survives the crash of every machine; false: it survives any process crash, and a machine
 *     crash of a minority)
 * @param peerDownAfterMs a peer not heard from for this long is reported down to every group (the failure
 *     detector that lets quiet groups stay quiet)
 * @param pingMs each peer hears from this engine at least this often, with a ping when nothing else went to it
 * @param loopQueueMax tasks (inbound frames, proposals) a loop queues at most; a proposal beyond it is refused
 *     {@code BUSY} and inbound traffic is dropped (Raft resends it)
 * @param snapshotChunkBytes bytes of a snapshot sent to a follower in one chunk (one chunk in flight per follower)
 * @param applyThreads 0: committed entries are applied on the loop thread (for state machines that never block);
 *     more: on a shared pool of this many threads, each group's in order ({@link ApplyLane}), so that a machine
 *     that blocks holds up its own group only
 */
public record EngineConfig(int selfId, int loops, long tickMs, RaftConfig raft, boolean fsync, long peerDownAfterMs,
        long pingMs, int loopQueueMax, int snapshotChunkBytes, int applyThreads) {

    public static final long TICK_MS_DEFAULT = 100;
    public static final long PING_MS_DEFAULT = 250;
    public static final int LOOP_QUEUE_MAX_DEFAULT = 65_536;
    /** Loops at most, whatever the cores: the thread count of an engine is bounded by it. */
    public static final int LOOPS_MAX = 64;
    public static final int SNAPSHOT_CHUNK_BYTES_DEFAULT = 1024 * 1024;
    /** Apply threads at most, whatever the cores. */
    public static final int APPLY_THREADS_MAX = 256;

    public EngineConfig {
        if (selfId < 1) {
            throw new IllegalArgumentException("a replica id is at least 1, not " + selfId);
        }
        if (loops < 1 || loops > LOOPS_MAX) {
            throw new IllegalArgumentException("loops must be within [1, " + LOOPS_MAX + "], not " + loops);
        }
        if (tickMs < 1 || pingMs < 1 || peerDownAfterMs < pingMs) {
            throw new IllegalArgumentException("tickMs and pingMs at least 1, peerDownAfterMs at least pingMs: "
                    + tickMs + ", " + pingMs + ", " + peerDownAfterMs);
        }
        if (loopQueueMax < 16) {
            throw new IllegalArgumentException("loopQueueMax at least 16, not " + loopQueueMax);
        }
        if (snapshotChunkBytes < 1 || snapshotChunkBytes > FrameCodec.FRAME_BYTES_MAX / 2) {
            throw new IllegalArgumentException("snapshotChunkBytes within [1, " + FrameCodec.FRAME_BYTES_MAX / 2
                    + "], not " + snapshotChunkBytes);
        }
        if (applyThreads < 0 || applyThreads > APPLY_THREADS_MAX) {
            throw new IllegalArgumentException("applyThreads within [0, " + APPLY_THREADS_MAX + "], not "
                    + applyThreads);
        }
    }

    /**
     * One loop per core, 100 ms ticks (elections after 1-2 s of silence), a peer reported down after the election
     * timeout's lower end, durable writes.
     */
    public static EngineConfig defaults(int selfId) {
        RaftConfig raft = RaftConfig.defaults();
        int loops = Math.min(LOOPS_MAX, Runtime.getRuntime().availableProcessors());
        return new EngineConfig(selfId, loops, TICK_MS_DEFAULT, raft, true, raft.electionTicks() * TICK_MS_DEFAULT,
                PING_MS_DEFAULT, LOOP_QUEUE_MAX_DEFAULT, SNAPSHOT_CHUNK_BYTES_DEFAULT, 0);
    }

    public EngineConfig withLoops(int count) {
        return new EngineConfig(selfId, count, tickMs, raft, fsync, peerDownAfterMs, pingMs, loopQueueMax,
                snapshotChunkBytes, applyThreads);
    }

    public EngineConfig withFsync(boolean value) {
        return new EngineConfig(selfId, loops, tickMs, raft, value, peerDownAfterMs, pingMs, loopQueueMax,
                snapshotChunkBytes, applyThreads);
    }

    public EngineConfig withTiming(long tick, long ping, long peerDownAfter) {
        return new EngineConfig(selfId, loops, tick, raft, fsync, peerDownAfter, ping, loopQueueMax,
                snapshotChunkBytes, applyThreads);
    }

    public EngineConfig withSnapshotChunkBytes(int bytes) {
        return new EngineConfig(selfId, loops, tickMs, raft, fsync, peerDownAfterMs, pingMs, loopQueueMax, bytes,
                applyThreads);
    }

    public EngineConfig withApplyThreads(int threads) {
        return new EngineConfig(selfId, loops, tickMs, raft, fsync, peerDownAfterMs, pingMs, loopQueueMax,
                snapshotChunkBytes, threads);
    }
}
