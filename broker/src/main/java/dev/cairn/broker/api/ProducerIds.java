package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import java.util.concurrent.CompletableFuture;

/**
 * Cluster-unique producer ids for this broker: blocks are reserved through the metadata group, so no two brokers
 * hand out the same id, and ids of a block are given out one at a time. Thread-safe.
 */
public final class ProducerIds {
    private final MetadataService metadata;
    private long nextProducerId;
    private long blockEnd;
    private CompletableFuture<MetadataResult> pendingBlock;

    public ProducerIds(MetadataService metadata) {
        this.metadata = metadata;
    }

    /** The next id of the current block, reserving a new block when it runs out; -1 when none can be had. */
    public synchronized CompletableFuture<Long> next() {
        if (nextProducerId < blockEnd) {
            return CompletableFuture.completedFuture(nextProducerId++);
        }
        if (pendingBlock == null) {
            pendingBlock = metadata.submit(new MetadataCommand.AllocateProducerIds(metadata.localNodeId()));
        }
        return pendingBlock.thenCompose(this::onBlock);
    }

    private synchronized CompletableFuture<Long> onBlock(MetadataResult result) {
        pendingBlock = null;
        if (result instanceof MetadataResult.ProducerIds block) {
            if (nextProducerId >= blockEnd) {
                nextProducerId = block.firstProducerId();
                blockEnd = block.firstProducerId() + block.count();
            }
            return next();
        }
        return CompletableFuture.completedFuture(-1L);
    }
}
