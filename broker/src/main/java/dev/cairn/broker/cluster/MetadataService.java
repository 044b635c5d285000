package dev.cairn.broker.cluster;

import java.util.concurrent.CompletableFuture;

/** The replicated cluster metadata: the latest image, and changes through the metadata Raft group. */
public interface MetadataService {
    MetadataImage image();

    /** Never completes exceptionally; failures are {@link MetadataResult.Rejected}. */
    CompletableFuture<MetadataResult> submit(MetadataCommand command);

    /** The node id of the metadata group's leader, Kafka's "controller", or -1 when none is known. */
    int controllerId();

    /** This broker's node id. */
    int localNodeId();
}
