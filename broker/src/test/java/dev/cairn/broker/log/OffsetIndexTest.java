package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.SimulatedFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The sparse indexes' lookups, truncation and load-time sanity checks (kafka-protocol.md A.5). */
class OffsetIndexTest {
    private final SimulatedFileIo io = new SimulatedFileIo(1);

    private static OffsetIndex index() {
        OffsetIndex index = new OffsetIndex(100, 10);
        index.append(110, 4096);
        index.append(120, 8192);
        index.append(135, 12288);
        return index;
    }

    @Test
    void floorLookupsByOffsetAndPosition() throws IOException {
        OffsetIndex index = index();
        assertEquals(-1, index.floorEntryByOffset(109));
        assertEquals(0, index.floorEntryByOffset(110));
        assertEquals(1, index.floorEntryByOffset(134));
        assertEquals(2, index.floorEntryByOffset(1_000));
        assertEquals(-1, index.floorEntryByPosition(4095));
        assertEquals(1, index.floorEntryByPosition(12287));
        assertEquals(120, index.offsetAt(1));
        assertEquals(8192, index.positionAt(1));
        index.truncateTo(120);
        assertEquals(1, index.count());
        assertEquals(4096, index.lastPosition());
    }

    @Test
    void sealedIndexAnswersFromTheFile() throws IOException {
        Path path = Path.of("/d/00000000000000000100.index");
        FileHandle file = io.open(path);
        index().writeTo(file);
        OffsetIndex sealed = OffsetIndex.openSealed(file, 100, 10, 20_000, 200);
        assertNotNull(sealed);
        assertTrue(sealed.isSealed());
        assertEquals(-1, sealed.floorEntryByOffset(109));
        assertEquals(1, sealed.floorEntryByOffset(134));
        assertEquals(2, sealed.floorEntryByPosition(1 << 20));
        assertEquals(135, sealed.offsetAt(2));
        assertEquals(12288, sealed.lastPosition());
        assertThrows(InvariantViolation.class, () -> sealed.append(200, 30_000), "sealed indexes are read-only");
        assertNull(OffsetIndex.openSealed(file, 100, 10, 12_288, 200), "last entry beyond the log");
        sealed.close();

        TimeIndex times = new TimeIndex(100);
        times.maybeAppend(1_000, 100);
        times.maybeAppend(2_000, 110);
        FileHandle timeFile = io.open(Path.of("/d/00000000000000000100.timeindex"));
        times.writeTo(timeFile);
        times.seal(timeFile);
        assertEquals(110, times.scanStartOffset(2_500));
        assertEquals(100, times.scanStartOffset(1_500));
        assertEquals(2_000, times.lastTimestamp());
        TimeIndex reopened = TimeIndex.openSealed(timeFile, 100, 200);
        assertNotNull(reopened);
        assertEquals(110, reopened.scanStartOffset(9_999));
        assertEquals(110, reopened.lastOffset());
        timeFile.close();
    }

    @Test
    void appendsMustIncreaseAndRespectTheCapacity() {
        OffsetIndex index = index();
        assertThrows(InvariantViolation.class, () -> index.append(135, 20_000), "offset not increasing");
        assertThrows(InvariantViolation.class, () -> index.append(140, 12288), "position not increasing");
        OffsetIndex tiny = new OffsetIndex(0, 1);
        tiny.append(1, 10);
        assertTrue(tiny.isFull());
        assertThrows(InvariantViolation.class, () -> tiny.append(2, 20));
    }

    @Test
    void loadRoundTripsAndRejectsDamagedFiles() throws IOException {
        Path path = Path.of("/d/00000000000000000100.index");
        try (FileHandle file = io.open(path)) {
            index().writeTo(file);
            assertEquals(24, file.size());
            OffsetIndex loaded = OffsetIndex.load(file, 100, 10, 20_000, 200);
            assertNotNull(loaded);
            assertEquals(3, loaded.count());
            assertEquals(135, loaded.offsetAt(2));
            assertNull(OffsetIndex.load(file, 100, 10, 12_288, 200), "entry beyond the log");
            assertNull(OffsetIndex.load(file, 100, 10, 20_000, 130), "entry beyond the next offset");
            assertNull(OffsetIndex.load(file, 100, 2, 20_000, 200), "more entries than segment.index.bytes allows");
            file.write(ByteBuffer.allocate(4).putInt(0, 5), 8); // second relative offset 5 < 10
            assertNull(OffsetIndex.load(file, 100, 10, 20_000, 200), "offsets not increasing");
            file.truncate(20);
            assertNull(OffsetIndex.load(file, 100, 10, 20_000, 200), "not a multiple of the entry size");
        }
    }

    @Test
    void timeIndexKeepsRisingMaximaAndFindsTheScanStart() throws IOException {
        TimeIndex index = new TimeIndex(100);
        index.maybeAppend(1_000, 100);
        index.maybeAppend(900, 105); // not a new maximum: ignored
        index.maybeAppend(2_000, 110);
        index.maybeAppend(3_000, 130);
        assertEquals(3, index.count());
        assertEquals(100, index.scanStartOffset(1_000), "nothing below 1000 before offset 100");
        assertEquals(100, index.scanStartOffset(1_500));
        assertEquals(110, index.scanStartOffset(2_500));
        assertEquals(130, index.scanStartOffset(9_999));
        assertEquals(3_000, index.lastTimestamp());
        Path path = Path.of("/d/00000000000000000100.timeindex");
        try (FileHandle file = io.open(path)) {
            index.writeTo(file);
            assertEquals(3 * SegmentDescriptor.TIME_INDEX_ENTRY_BYTES, file.size());
            assertEquals(130, TimeIndex.load(file, 100, 200).lastOffset());
            assertNull(TimeIndex.load(file, 100, 120), "entry beyond the next offset");
        }
        index.truncateTo(130);
        assertEquals(2_000, index.lastTimestamp());
        assertEquals(110, index.lastOffset());
    }
}
