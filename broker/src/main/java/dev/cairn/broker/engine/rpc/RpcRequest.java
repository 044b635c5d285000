package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.partition.Command;

/**
 * What one broker asks the broker that leads a partition's Raft group on Cairn's engine ({@link EngineRpc}). Every
 * request names the engine's group id, not the topic partition: the two brokers agree on it through metadata.
 */
public sealed interface RpcRequest {

    /** The group's engine id. */
    int group();

    /** Submit {@code command} to the group as its leader would, waiting at most {@code timeoutMs} for its Result. */
    record Submit(int group, int timeoutMs, Command command) implements RpcRequest {
    }

    /** The committed offset of consumer group {@code groupId} for the partition, read on the leader. */
    record CommittedOffset(int group, String groupId, boolean requireStable) implements RpcRequest {
    }

    /** The consumer groups with a committed offset for the partition, read on the leader. */
    record CommittedGroups(int group) implements RpcRequest {
    }

    /**
     * The committed batches of the group's partition from {@code fromOffset}, whole, about {@code maxBytes}: what a
     * replica that lost batches it had not flushed copies back (any replica holding them may answer).
     */
    record CommittedBatches(int group, long fromOffset, int maxBytes) implements RpcRequest {
    }

    /** Hand the group's leadership to broker {@code toNode}; true once it leads, within {@code timeoutMs}. */
    record TransferLeadership(int group, int toNode, int timeoutMs) implements RpcRequest {
    }
}
