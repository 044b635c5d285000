package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.broker.partition.SequenceCheck.Duplicate;
import dev.cairn.broker.partition.SequenceCheck.Reject;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Idempotent producer rules: docs/kafka-protocol.md A.3 (Kafka's ProducerAppendInfo.checkSequence). */
class ProducerStateTableTest {
    private static final long PID = 1000L;
    private final ProducerStateTable table = new ProducerStateTable();

    private void append(short epoch, int first, int last, long baseOffset) {
        assertEquals(SequenceCheck.APPEND, table.check(PID, epoch, first, last));
        table.onAppended(PID, epoch, new ProducerBatch(first, last, baseOffset, baseOffset + last - first, 0));
    }

    @Test
    void unknownProducerMustStartAtSequenceZero() {
        assertEquals(SequenceCheck.APPEND, table.check(PID, (short) 0, 0, 4));
        assertEquals(SequenceCheck.APPEND, table.check(PID, (short) 3, 0, 20));
        assertEquals(ErrorCode.UNKNOWN_PRODUCER_ID,
                assertInstanceOf(Reject.class, table.check(PID, (short) 3, 17, 20)).error());
    }

    @Test
    void retriedBatchIsADuplicateWithItsOriginalOffset() {
        append((short) 0, 0, 4, 100);
        append((short) 0, 5, 9, 105);
        Duplicate duplicate = assertInstanceOf(Duplicate.class, table.check(PID, (short) 0, 0, 4));
        assertEquals(100, duplicate.original().baseOffset());
        assertEquals(104, duplicate.original().lastOffset());
    }

    @Test
    void onlyTheLastFiveBatchesAreRemembered() {
        for (int i = 0; i < 7; i++) {
            append((short) 0, i, i, 10 + i);
        }
        // Batch 0 and 1 are forgotten: a retry of them is no longer recognised and is out of order.
        assertInstanceOf(Reject.class, table.check(PID, (short) 0, 1, 1));
        assertInstanceOf(Duplicate.class, table.check(PID, (short) 0, 2, 2));
    }

    @Test
    void gapIsOutOfOrder() {
        append((short) 0, 0, 4, 0);
        Reject reject = assertInstanceOf(Reject.class, table.check(PID, (short) 0, 6, 8));
        assertEquals(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, reject.error());
    }

    @Test
    void olderEpochIsFencedAndNewEpochStartsAtZero() {
        append((short) 2, 0, 0, 0);
        assertEquals(ErrorCode.INVALID_PRODUCER_EPOCH,
                assertInstanceOf(Reject.class, table.check(PID, (short) 1, 1, 1)).error());
        assertEquals(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                assertInstanceOf(Reject.class, table.check(PID, (short) 3, 5, 5)).error());
        append((short) 3, 0, 2, 1);
        // The old epoch's batches are gone with the bump.
        assertEquals(ErrorCode.INVALID_PRODUCER_EPOCH,
                assertInstanceOf(Reject.class, table.check(PID, (short) 2, 0, 0)).error());
    }

    @Test
    void sequenceWrapsAfterIntegerMax() {
        table.onAppended(PID, (short) 0, new ProducerBatch(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 0, 1, 0));
        assertEquals(SequenceCheck.APPEND, table.check(PID, (short) 0, 0, 3));
        assertInstanceOf(Reject.class, table.check(PID, (short) 0, 1, 3));
    }

    @Test
    void truncationForgetsBatchesItRemoved() {
        append((short) 0, 0, 0, 10);
        append((short) 0, 1, 1, 11);
        table.onLogTruncatedTo(11);
        assertInstanceOf(Duplicate.class, table.check(PID, (short) 0, 0, 0));
        assertEquals(SequenceCheck.APPEND, table.check(PID, (short) 0, 1, 1));
        table.onLogTruncatedBelow(11);
        assertEquals(0, table.size());
    }

    @Test
    void snapshotRoundTrips() {
        append((short) 0, 0, 4, 0);
        append((short) 0, 5, 5, 5);
        table.onAppended(7L, (short) 9, new ProducerBatch(3, 3, 6, 6, 1234));
        ByteBuffer buffer = ByteBuffer.allocate(table.serializedSizeInBytes());
        table.writeTo(buffer);
        assertEquals(0, buffer.remaining());
        buffer.flip();
        ProducerStateTable copy = new ProducerStateTable();
        copy.readFrom(buffer);
        assertEquals(2, copy.size());
        assertInstanceOf(Duplicate.class, copy.check(PID, (short) 0, 5, 5));
        assertInstanceOf(Duplicate.class, copy.check(7L, (short) 9, 3, 3));
        assertEquals(SequenceCheck.APPEND, copy.check(PID, (short) 0, 6, 6));
    }
}
