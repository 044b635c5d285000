package dev.cairn.broker.cluster;

import dev.cairn.protocol.ErrorCode;

/** What applying a {@link MetadataCommand} produced; failures are results, never exceptions. */
public sealed interface MetadataResult {
    MetadataResult OK = new Ok();

    record Ok() implements MetadataResult {
    }

    record Rejected(ErrorCode error, String message) implements MetadataResult {
    }

    /** A block of producer ids {@code [firstProducerId, firstProducerId + count)} now owned by the proposer. */
    record ProducerIds(long firstProducerId, int count) implements MetadataResult {
    }
}
