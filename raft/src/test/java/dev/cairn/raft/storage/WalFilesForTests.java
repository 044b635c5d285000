package dev.cairn.raft.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Reads and writes RaftWal segment files byte by byte, apart from RaftWal's own code (layout in RaftWal's Javadoc):
 * to put records on disk that RaftWal itself refuses to write, and to check independently what the segments left
 * on disk hold.
 */
final class WalFilesForTests {

    private WalFilesForTests() {
    }

    /** Appends one record (type, group and body after them) to the end of {@code segment}. */
    static void appendRecord(Path segment, byte type, int group, ByteBuffer body) throws IOException {
        ByteBuffer payload = ByteBuffer.allocate(5 + body.remaining()).put(type).putInt(group).put(body).flip();
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        ByteBuffer record = ByteBuffer.allocate(8 + payload.remaining()).order(ByteOrder.BIG_ENDIAN)
                .putInt(payload.remaining()).putInt((int) crc.getValue()).put(payload).flip();
        Files.write(segment, record.array(), StandardOpenOption.APPEND);
    }

    static ByteBuffer entryBody(long term, long raftIndex, byte[] data) {
        return ByteBuffer.allocate(20 + data.length).putLong(term).putLong(raftIndex).putInt(data.length).put(data)
                .flip();
    }

    /** The segment files in {@code dir}, lowest number first. */
    static List<Path> segmentFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("wal-\\d{20}\\.log")).sorted().toList();
        }
    }

    /**
     * For each segment on disk, lowest first, the highest index of the live entries it holds for each group: an
     * entry replaced by a later one of the same or a lower index, every entry before a snapshot that replaced the log,
     * and every entry before a removal are dead (what makes a segment useful, counted apart from RaftWal's
     * bookkeeping).
     */
    static List<Map<Integer, Long>> entryIndexMaxBySegment(Path dir) throws IOException {
        List<Map<Integer, Long>> segments = new ArrayList<>();
        Map<Integer, Long> lastIndexes = new HashMap<>();
        for (Path file : segmentFiles(dir)) {
            Map<Integer, Long> segment = new HashMap<>();
            segments.add(segment);
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            while (bytes.remaining() >= 8) {
                int length = bytes.getInt();
                bytes.getInt();
                ByteBuffer body = bytes.slice(bytes.position(), length);
                bytes.position(bytes.position() + length);
                byte type = body.get();
                int group = body.getInt();
                if (type == WalEntryRecords.TYPE_ENTRY) {
                    body.getLong();
                    long raftIndex = body.getLong();
                    if (raftIndex <= lastIndexes.getOrDefault(group, 0L)) {
                        for (Map<Integer, Long> earlier : segments) {
                            earlier.computeIfPresent(group, (g, max) -> max < raftIndex ? max : raftIndex - 1);
                        }
                    }
                    lastIndexes.put(group, raftIndex);
                    segment.merge(group, raftIndex, Math::max);
                } else if (type == RaftWal.TYPE_REMOVAL || type == RaftWal.TYPE_SNAPSHOT_REPLACING_LOG) {
                    segments.forEach(earlier -> earlier.remove(group));
                    lastIndexes.remove(group);
                }
            }
        }
        return segments;
    }
}
