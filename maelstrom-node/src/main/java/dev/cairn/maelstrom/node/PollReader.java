package dev.cairn.maelstrom.node;

import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.log.OffsetOutOfRangeException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.wire.DecodeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one key's messages from its partition, the way a poll must return them (maelstrom.md 3.1): from the
 * first offset at or above the requested one, ascending, with no message of that key left out in between. Other
 * keys' records in the same partition are skipped; that is what makes the per-key offsets sparse.
 *
 * <p>Reads see only applied, hence committed, data ({@link Partition#read} stops at the high watermark). A
 * follower may be behind its leader, which the workload allows (no recency requirement). Any thread.
 */
public final class PollReader {
    /** Messages returned per key per poll. */
    public static final int MESSAGES_PER_KEY_MAX = 64;
    /** Log bytes scanned per key per poll; the scan stops at a batch boundary once past it. */
    public static final int SCAN_BYTES_MAX = 256 * 1024;
    /** Bytes asked of the log per read call. */
    static final int READ_BYTES = 64 * 1024;

    /** One message of the key: its partition offset and the message bytes as sent (JSON). */
    public record Message(long offset, byte[] value) {
    }

    private PollReader() {
    }

    public static List<Message> read(Partition partition, String key, long fromOffset) throws IOException {
        ByteBuffer wanted = ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
        List<Message> messages = new ArrayList<>();
        long at = Math.max(fromOffset, partition.logStartOffset());
        long highWatermark = partition.highWatermark();
        int scannedBytes = 0;
        RecordBatch batch = new RecordBatch();
        RecordCursor cursor = new RecordCursor();
        while (at < highWatermark && messages.size() < MESSAGES_PER_KEY_MAX && scannedBytes < SCAN_BYTES_MAX) {
            LogSlice slice;
            try {
                slice = partition.read(at, READ_BYTES);
            } catch (OffsetOutOfRangeException e) {
                break;
            }
            if (slice.isEmpty()) {
                break;
            }
            ByteBuffer bytes = slice.readBytes();
            scannedBytes += bytes.remaining();
            if (!collect(bytes, fromOffset, wanted, batch, cursor, messages)) {
                break;
            }
            at = slice.nextOffset();
        }
        return messages;
    }

    /** Adds the key's messages of every batch in {@code bytes}; false when the per-poll bound was reached. */
    private static boolean collect(ByteBuffer bytes, long fromOffset, ByteBuffer wanted, RecordBatch batch,
            RecordCursor cursor, List<Message> messages) {
        int position = bytes.position();
        try {
            while (position < bytes.limit()) {
                batch.wrap(bytes, position);
                cursor.reset(batch);
                while (cursor.next()) {
                    if (cursor.offset() < fromOffset || !wanted.equals(cursor.key())) {
                        continue;
                    }
                    if (messages.size() >= MESSAGES_PER_KEY_MAX) {
                        return false;
                    }
                    ByteBuffer value = cursor.value();
                    byte[] copy = new byte[value.remaining()];
                    value.duplicate().get(copy);
                    messages.add(new Message(cursor.offset(), copy));
                }
                position += batch.sizeInBytes();
            }
        } catch (DecodeException e) {
            // Stored batches were validated before they were replicated; an unreadable one is a bug. Stop here so
            // that what is returned stays a contiguous prefix.
            throw new IllegalStateException("unreadable batch at byte " + position + " of a log read", e);
        }
        return true;
    }
}
