package dev.cairn.broker.partition;

/**
 * A partition's applied state as a leader plans placements from it ({@link Partition#committedView()}): the Raft
 * index applied last, the high watermark, a copy of the producer state and the first offset of each producer's open
 * transaction, and how many aborted transactions it holds, all as of that index (DescribeProducers reads it too).
 */
public record CommittedView(long appliedRaftIndex, long highWatermark, ProducerStateTable producers,
        java.util.Map<Long, Long> openTransactions, int abortedTransactions) {
}
