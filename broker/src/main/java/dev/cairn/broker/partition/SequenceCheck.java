package dev.cairn.broker.partition;

import dev.cairn.protocol.ErrorCode;

/**
 * The outcome of checking an idempotent batch against the producer's state: append it, answer it as a
 * duplicate of an earlier append (success with that append's offsets), or reject it with a Kafka error.
 */
public sealed interface SequenceCheck {
    SequenceCheck APPEND = new Append();

    /** The batch is new and in sequence: append it. */
    record Append() implements SequenceCheck {
    }

    /** The batch was appended before: answer with the original offsets, do not append. */
    record Duplicate(ProducerBatch original) implements SequenceCheck {
    }

    /** The batch must not be appended; the client sees {@code error}. */
    record Reject(ErrorCode error, String reason) implements SequenceCheck {
    }
}
