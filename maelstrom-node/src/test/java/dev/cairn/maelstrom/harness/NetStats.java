package dev.cairn.maelstrom.harness;

/**
 * Message counts of a run, like Maelstrom's {@code :net} checker: every message handed to the network is
 * counted once when it is sent, whether or not a partition later drops it.
 *
 * @param allMessages           every message (client and node-to-node)
 * @param serverMessages        messages between two nodes (no client involved)
 * @param clientMessages        messages to or from a client
 * @param droppedByPartition    node-to-node messages dropped because the partition cut the link at delivery
 * @param droppedUnknownDest    messages to a destination that is not on the network (e.g. a closed client)
 * @param malformedLines        node stdout lines that were not a valid message envelope
 */
public record NetStats(long allMessages, long serverMessages, long clientMessages, long droppedByPartition,
                       long droppedUnknownDest, long malformedLines) {
}
