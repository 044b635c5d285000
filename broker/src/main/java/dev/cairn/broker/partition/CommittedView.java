package dev.cairn.broker.partition;

/**
 * A partition's applied state as a leader plans placements from it ({@link Partition#committedView()}): the Raft
 * index applied last, the high watermark and a copy of the producer state, all as of that index.
 */
public record CommittedView(long appliedRaftIndex, long highWatermark, ProducerStateTable producers) {
}
