package dev.cairn.broker.partition;

/**
 * What the partition remembers of one appended idempotent batch: its sequence range and where it landed, so
 * a retry of exactly this batch is answered with the original offsets instead of being appended again.
 */
public record ProducerBatch(int firstSequence, int lastSequence, long baseOffset, long lastOffset, long timestampMs) {
}
