package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The defaults are Kafka's (broker configs message.max.bytes, segment.bytes, message.timestamp.*.max.ms). */
class BatchValidationConfigTest {
    @Test
    void defaultsAreKafkas() {
        BatchValidationConfig defaults = BatchValidationConfig.DEFAULTS;
        assertEquals(1_048_588, defaults.messageBytesMax());
        assertEquals(1_073_741_824L, defaults.segmentBytes());
        assertEquals(Long.MAX_VALUE, defaults.timestampBeforeMaxMs());
        assertEquals(3_600_000L, defaults.timestampAfterMaxMs());
        assertFalse(defaults.logAppendTime());
        assertFalse(defaults.keyRequired());
        assertEquals(16 * 1_048_588, defaults.decompressedBytesMax());
        assertEquals(defaults.decompressedBytesMax(), RecordCursor.DEFAULT_DECOMPRESSED_BYTES_MAX);
    }

    @Test
    void withMessageBytesMaxScalesTheInflationLimit() {
        BatchValidationConfig small = BatchValidationConfig.DEFAULTS.withMessageBytesMax(1000);
        assertEquals(1000, small.messageBytesMax());
        assertEquals(16_000, small.decompressedBytesMax());
        assertEquals(Integer.MAX_VALUE - 8,
                BatchValidationConfig.DEFAULTS.withMessageBytesMax(Integer.MAX_VALUE).decompressedBytesMax());
    }

    @Test
    void nonsenseSettingsAreRefusedNamingTheValue() {
        BatchValidationConfig d = BatchValidationConfig.DEFAULTS;
        assertThrows(IllegalArgumentException.class, () -> new BatchValidationConfig(60, d.segmentBytes(),
                d.timestampBeforeMaxMs(), d.timestampAfterMaxMs(), false, false, d.decompressedBytesMax()));
        assertThrows(IllegalArgumentException.class, () -> new BatchValidationConfig(d.messageBytesMax(), 0,
                d.timestampBeforeMaxMs(), d.timestampAfterMaxMs(), false, false, d.decompressedBytesMax()));
        assertThrows(IllegalArgumentException.class, () -> new BatchValidationConfig(d.messageBytesMax(),
                d.segmentBytes(), -1, d.timestampAfterMaxMs(), false, false, d.decompressedBytesMax()));
        assertThrows(IllegalArgumentException.class, () -> new BatchValidationConfig(d.messageBytesMax(),
                d.segmentBytes(), d.timestampBeforeMaxMs(), d.timestampAfterMaxMs(), false, false, -1));
    }
}
