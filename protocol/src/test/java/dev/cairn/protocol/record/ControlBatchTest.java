package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ControlBatchTest {

    @Test
    void aCommitMarkerIsOneTransactionalControlRecordWithTheProducerAndCoordinatorEpoch() {
        RecordBatch batch = RecordBatch.of(ControlBatch.marker(42L, (short) 3, true, 7, 1_000L));

        assertTrue(batch.isControl());
        assertTrue(batch.isTransactional());
        assertTrue(batch.isChecksumValid());
        assertEquals(42L, batch.producerId());
        assertEquals((short) 3, batch.producerEpoch());
        assertEquals(-1, batch.baseSequence());
        assertEquals(0, batch.lastOffsetDelta());
        assertEquals(1_000L, batch.maxTimestamp());
        assertEquals(ControlBatch.COMMIT, ControlBatch.type(batch));
        RecordCursor records = new RecordCursor().reset(batch);
        assertTrue(records.next());
        ByteBuffer value = records.value();
        assertEquals(0, value.getShort(0));
        assertEquals(7, value.getInt(2));
    }

    @Test
    void kafkaClientsReadsTheMarkerAsAnEndTransactionMarker() {
        org.apache.kafka.common.record.internal.MemoryRecords records =
                org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(
                        ControlBatch.marker(9L, (short) 2, false, 11, 77L));
        org.apache.kafka.common.record.internal.MutableRecordBatch kafkaBatch = records.batches().iterator().next();
        org.apache.kafka.common.record.internal.EndTransactionMarker marker =
                org.apache.kafka.common.record.internal.EndTransactionMarker.deserialize(kafkaBatch.iterator().next());

        assertTrue(kafkaBatch.isControlBatch() && kafkaBatch.isTransactional());
        kafkaBatch.ensureValid();
        assertEquals(org.apache.kafka.common.record.internal.ControlRecordType.ABORT, marker.controlType());
        assertEquals(11, marker.coordinatorEpoch());
        assertEquals(9L, kafkaBatch.producerId());
    }

    @Test
    void aKafkaCommitMarkerReadsAsCommit() {
        ByteBuffer kafka = org.apache.kafka.common.record.internal.MemoryRecords.withEndTransactionMarker(5L,
                (short) 1, new org.apache.kafka.common.record.internal.EndTransactionMarker(
                        org.apache.kafka.common.record.internal.ControlRecordType.COMMIT, 3)).buffer();

        assertEquals(ControlBatch.COMMIT, ControlBatch.type(RecordBatch.of(kafka)));
    }

    @Test
    void anAbortMarkerSaysAbort() {
        assertEquals(ControlBatch.ABORT, ControlBatch.type(RecordBatch.of(ControlBatch.marker(1L, (short) 0, false,
                0, 5L))));
    }

    @Test
    void aDataBatchHasNoControlType() {
        RecordBatch data = RecordBatch.of(new RecordBatchBuilder(CompressionType.NONE).append(1L, new byte[] {1},
                new byte[] {2}).build());

        assertThrows(DecodeException.class, () -> ControlBatch.type(data));
    }
}
