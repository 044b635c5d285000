package dev.cairn.jmh.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/** Valid RecordBatch v2 bytes of a given total size for the benchmarks, and temp directory handling. */
public final class BenchBatches {
    static final int HEADER_BYTES = 61;

    private BenchBatches() {
    }

    /** One batch of {@code totalBytes} (header included) holding {@code records} offsets. */
    public static ByteBuffer batch(int totalBytes, int records, long timestamp) {
        int payload = totalBytes - HEADER_BYTES;
        if (payload < 0) {
            throw new IllegalArgumentException("batch of " + totalBytes + " bytes is smaller than its header");
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(totalBytes);
        buffer.putLong(0).putInt(totalBytes - 12).putInt(0).put((byte) 2).putInt(0).putShort((short) 0)
                .putInt(records - 1).putLong(timestamp).putLong(timestamp).putLong(-1L).putShort((short) -1)
                .putInt(-1).putInt(records);
        for (int i = 0; i < payload; i++) {
            buffer.put((byte) (i * 31 + 7));
        }
        buffer.flip();
        CRC32C crc = new CRC32C();
        ByteBuffer covered = buffer.duplicate();
        covered.position(21);
        crc.update(covered);
        buffer.putInt(17, (int) crc.getValue());
        return buffer;
    }

    public static Path tempDirectory() throws IOException {
        return Files.createTempDirectory(Path.of("/tmp"), "cairn-jmh-");
    }

    public static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
