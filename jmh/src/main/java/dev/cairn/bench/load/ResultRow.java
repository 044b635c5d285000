package dev.cairn.bench.load;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * One CSV line of results: the run's labels and shape, one role's figures, and its whole latency histogram
 * (HdrHistogram, compressed, base64) so that reports can redraw the distribution later.
 *
 * @param target what was measured (e.g. cairn, kafka)
 * @param cell the matrix cell or run label
 * @param spec the run
 * @param result one role's outcome
 */
record ResultRow(String target, String cell, LoadSpec spec, RoleResult result) {
    static final String HEADER = "target,cell,role,recordBytes,partitions,replicationFactor,producers,consumers,acks,"
            + "mode,rateRecordsPerSec,durationSec,records,recordsPerSec,mbPerSec,meanMs,p50Ms,p99Ms,p999Ms,maxMs,"
            + "errors,histogram";
    static final int COLUMNS = HEADER.split(",").length;

    String toCsv() {
        return String.join(",", target, cell, result.role(), Integer.toString(spec.recordBytes()),
                Integer.toString(spec.partitions()), Integer.toString(spec.replicationFactor()),
                Integer.toString(spec.producers()), Integer.toString(spec.consumers()), spec.acks(), spec.sendMode(),
                Integer.toString(spec.rateRecordsPerSec()), Integer.toString(spec.durationSec()),
                Long.toString(result.records()), fixed(result.recordsPerSec(), 1), fixed(result.megabytesPerSec(), 2),
                fixed(result.meanMs(), 3), fixed(result.percentileMs(50), 3), fixed(result.percentileMs(99), 3),
                fixed(result.percentileMs(99.9), 3), fixed(result.maxMs(), 3), Long.toString(result.errors()),
                encode(result.latencyUs()));
    }

    static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    static Histogram decode(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        } catch (DataFormatException | IllegalArgumentException e) {
            throw new IllegalArgumentException("unreadable histogram column: " + e.getMessage(), e);
        }
    }
}
