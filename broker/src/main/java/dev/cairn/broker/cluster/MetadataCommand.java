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

    /** Reserves the next block of producer ids for {@code nodeId}'s InitProducerId answers. */
    record AllocateProducerIds(int nodeId) implements MetadataCommand {
    }
}
