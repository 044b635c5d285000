package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.broker.partition.Partition;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * This node's replicas of the topic's partitions, each a Raft group over all nodes, whichever Raft runs them:
 * Apache Ratis ({@link PartitionGroups}, the default) or Cairn's own core ({@link CoreRaftGroups},
 * {@code --raft cairn}). The state machine is the broker's {@link Partition} either way.
 */
public interface ReplicatedPartitions extends Closeable {

    /** What this node knows of a group's leader. {@code leaderId} is null when none is known. */
    record Leadership(boolean leadsAndReady, String leaderId) {
        static final Leadership UNKNOWN = new Leadership(false, null);
    }

    void start() throws IOException;

    int partitionCount();

    String selfId();

    /** The partition core for reads (committed data only), or null before the group is running here. */
    Partition partition(int p);

    Leadership leadership(int p);

    /**
     * Submits encoded command bytes to this node's replica of group {@code p}. Completes with the encoded result
     * once the command applied, or exceptionally when it did not (not leader, lost to a new leader) or may not
     * have (its outcome is unknown).
     */
    CompletableFuture<byte[]> submitLocal(int p, byte[] command);

    /** Whether a Maelstrom message of this {@code type} is Raft traffic between nodes for this implementation. */
    boolean isRaftMessage(String type);

    /** Takes one Raft message from node {@code src}; called on the stdin reader, so it only hands work over. */
    void onRaftMessage(String src, ObjectNode body);
}
