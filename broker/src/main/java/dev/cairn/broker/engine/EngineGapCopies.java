package dev.cairn.broker.engine;

import dev.cairn.broker.engine.rpc.EngineRpc;
import dev.cairn.broker.replica.GapFiller;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.runtime.GroupStatus;
import dev.cairn.raft.runtime.RaftEngine;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Copies of a group's committed batches from its leader, through the leader RPC, for a replica whose segment lost
 * batches it had not flushed ({@link GapFiller}, which calls this on the replica's apply thread and bounds the
 * whole repair). Each read waits at most {@link #READ_TIMEOUT_MS}.
 */
final class EngineGapCopies implements EngineGroups.GroupCopies {
    /** The longest one read of batches from the leader is waited for. */
    static final long READ_TIMEOUT_MS = 10_000;

    private final RaftEngine engine;
    private final int selfReplica;
    private final EngineRpc rpc;

    /** @param selfReplica this broker's replica id in the engine (its node id plus one) */
    EngineGapCopies(RaftEngine engine, int selfReplica, EngineRpc rpc) {
        this.engine = engine;
        this.selfReplica = selfReplica;
        this.rpc = rpc;
    }

    @Override
    public ByteBuffer committedBatches(int group, long fromOffset, int maxBytes) throws Exception {
        GroupStatus status = engine.status(group);
        int leader = status == null ? RaftNode.NONE : status.leader();
        if (leader == RaftNode.NONE || leader == selfReplica) {
            throw new IllegalStateException("group " + group + " has no other replica leading it to copy from");
        }
        ByteBuffer batches = rpc.committedBatches(leader - 1, group, fromOffset, maxBytes, READ_TIMEOUT_MS)
                .get(READ_TIMEOUT_MS + 1_000, TimeUnit.MILLISECONDS);
        if (batches == null) {
            throw new IllegalStateException("group " + group + "'s leader, broker " + (leader - 1)
                    + ", did not answer a read of its batches from offset " + fromOffset);
        }
        return batches;
    }
}
