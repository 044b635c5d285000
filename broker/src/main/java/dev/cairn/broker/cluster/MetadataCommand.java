package dev.cairn.broker.cluster;

/** A change to cluster metadata, replicated through the metadata Raft group and applied in log order. */
public sealed interface MetadataCommand {

    /** A broker announces (or re-announces after restart) its endpoints. */
    record RegisterBroker(BrokerInfo broker) implements MetadataCommand {
    }

    /** Creates a topic; the proposer chose its id and replica assignment before replication. */
    record CreateTopic(TopicInfo topic) implements MetadataCommand {
    }

    record DeleteTopic(String name) implements MetadataCommand {
    }

    /**
     * A partition leader announces itself and its in-sync replicas. Applied only while the topic id still
     * names the topic, and only when the epoch is not older than the one already known.
     */
    record UpdatePartitionState(java.util.UUID topicId, int partition, PartitionState state)
            implements MetadataCommand {
    }

    /** Reserves the next block of producer ids for {@code nodeId}'s InitProducerId answers. */
    record AllocateProducerIds(int nodeId) implements MetadataCommand {
    }
}
