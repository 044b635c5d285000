package dev.cairn.broker.partition;

import dev.cairn.protocol.ErrorCode;

/** What applying a {@link Command} produced. Failures are results: nothing is thrown out of apply. */
public sealed interface Result {
    Result OFFSET_COMMITTED = new OffsetCommitted();
    Result RECONFIGURED = new Reconfigured();

    /**
     * The batch is in the log at {@code [baseOffset, lastOffset]}, or was already there ({@code duplicate}: a
     * retried idempotent batch answered with its original offsets). {@code logAppendTimeMs} is -1 for
     * CreateTime topics.
     */
    record Appended(long baseOffset, long lastOffset, long logAppendTimeMs, long logStartOffset, boolean duplicate)
            implements Result {
    }

    record Rejected(ErrorCode error, String message) implements Result {
    }

    /** The partition's log follows the topic configs a Reconfigure command carried. */
    record Reconfigured() implements Result {
    }

    record OffsetCommitted() implements Result {
    }

    /** A group's committed offset for the partition is gone; {@code existed} says whether there was one. */
    record OffsetDeleted(boolean existed) implements Result {
    }

    /**
     * A group's committed offset read through the partition's group; offset -1 when it has none. The leader epoch
     * is the one the client committed with, -1 when it sent none.
     */
    record OffsetFetched(long offset, String metadata, int leaderEpoch) implements Result {
        /** No committed offset. */
        public static final OffsetFetched NONE = new OffsetFetched(-1, null, -1);

        public static OffsetFetched of(dev.cairn.broker.offsets.OffsetStore.CommittedOffset committed) {
            return new OffsetFetched(committed.offset(), committed.metadata(), committed.leaderEpoch());
        }
    }

    /**
     * A compaction pass ran: it cleaned {@code segmentsCleaned} segments up to {@code cleanedUpTo} (-1 when none),
     * rewriting those that changed, from {@code bytesBefore} to {@code bytesAfter}; {@code keyMapFull} when the
     * keys below the requested offset did not all fit in the key map.
     */
    record Compacted(int segmentsCleaned, long cleanedUpTo, long bytesBefore, long bytesAfter, long recordsRemoved,
            boolean keyMapFull) implements Result {
    }

    /** Retention ran; the log now starts at {@code logStartOffset}. */
    record Retained(long logStartOffset, int segmentsDeleted) implements Result {
    }

    /**
     * A transaction coordinator command's answer: the producer id and epoch the transactional id holds after it
     * (-1 when unknown), or the error; {@code message} says why, for logs.
     */
    record TxnAnswer(ErrorCode error, long producerId, short producerEpoch, String message) implements Result {
    }

    /** The groups with a committed offset for the partition, as its leader has applied them (ListGroups). */
    record GroupsListed(java.util.List<String> groups) implements Result {
        public GroupsListed {
            groups = java.util.List.copyOf(groups);
        }
    }
}
