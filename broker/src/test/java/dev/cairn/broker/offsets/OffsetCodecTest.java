package dev.cairn.broker.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Offset values round-trip with their leader epoch, and values stored before epochs were kept still read. */
class OffsetCodecTest {
    @Test
    void aValueRoundTripsWithItsLeaderEpoch() {
        OffsetStore.CommittedOffset committed = new OffsetStore.CommittedOffset(42, "meta", 1000, 7);
        assertEquals(committed, OffsetCodec.decodeOffsetValue(OffsetCodec.offsetValue(committed)));
        OffsetStore.CommittedOffset noMetadata = new OffsetStore.CommittedOffset(1, null, 2, -1);
        assertEquals(noMetadata, OffsetCodec.decodeOffsetValue(OffsetCodec.offsetValue(noMetadata)));
    }

    @Test
    void aVersionOneValueReadsWithNoLeaderEpoch() {
        byte[] metadata = "m".getBytes(StandardCharsets.UTF_8);
        byte[] v1 = ByteBuffer.allocate(1 + 8 + 8 + 4 + metadata.length).put((byte) 1).putLong(9).putLong(5)
                .putInt(metadata.length).put(metadata).array();
        assertEquals(new OffsetStore.CommittedOffset(9, "m", 5, -1), OffsetCodec.decodeOffsetValue(v1));
    }
}
