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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Reads one key's messages from its partition, the way a poll must return them (maelstrom.md 3.1): from the
 * first offset at or above the requested one, ascending, with no message of that key left out in between. Other
 * keys' records in the same partition are skipped; that is what makes the per-key offsets sparse.
 *
 * <p>One reader per partition keeps a per-key index of the partition's committed records, built by reading the
 * log ({@link Partition#read}, batch by batch with a {@link RecordCursor}) from where it stopped last time up to
 * the high watermark. Without it every poll would rescan the partition from the requested offset, and a key whose
 * records sit far behind it (the final polls start every key at 0) would need the whole log scanned per poll.
 * The index is derived state: committed records never change, so it only grows. A follower may be behind its
 * leader; the workload allows that (no recency requirement).
 *
 * <p>Thread safety: {@link #read} is synchronized; polls of one partition take turns.
 */
public final class PollReader {
    /** Messages returned per key per poll. */
    public static final int MESSAGES_PER_KEY_MAX = 64;
    /** Bytes asked of the log per read call while indexing. */
    static final int READ_BYTES = 64 * 1024;

    /** One message of the key: its partition offset and the message bytes as sent (JSON). */
    public record Message(long offset, byte[] value) {
    }

    private final Map<String, NavigableMap<Long, byte[]>> byKey = new HashMap<>();
    private final RecordBatch batch = new RecordBatch();
    private final RecordCursor cursor = new RecordCursor();
    private long indexedUpToOffset;

    /** Up to {@link #MESSAGES_PER_KEY_MAX} of {@code key}'s messages at or above {@code fromOffset}, ascending. */
    public synchronized List<Message> read(Partition partition, String key, long fromOffset) throws IOException {
        catchUp(partition);
        NavigableMap<Long, byte[]> messages = byKey.get(key);
        List<Message> result = new ArrayList<>();
        if (messages == null) {
            return result;
        }
        for (Map.Entry<Long, byte[]> entry : messages.tailMap(fromOffset, true).entrySet()) {
            if (result.size() >= MESSAGES_PER_KEY_MAX) {
                break;
            }
            result.add(new Message(entry.getKey(), entry.getValue()));
        }
        return result;
    }

    /** Indexes every record between the last indexed offset and the high watermark (bounded by the log). */
    private void catchUp(Partition partition) throws IOException {
        long highWatermark = partition.highWatermark();
        indexedUpToOffset = Math.max(indexedUpToOffset, partition.logStartOffset());
        while (indexedUpToOffset < highWatermark) {
            LogSlice slice;
            try {
                slice = partition.read(indexedUpToOffset, READ_BYTES);
            } catch (OffsetOutOfRangeException e) {
                return;
            }
            if (slice.isEmpty()) {
                return;
            }
            index(slice.readBytes());
            indexedUpToOffset = slice.nextOffset();
        }
    }

    private void index(ByteBuffer bytes) {
        int position = bytes.position();
        try {
            while (position < bytes.limit()) {
                batch.wrap(bytes, position);
                cursor.reset(batch);
                while (cursor.next()) {
                    if (cursor.offset() < indexedUpToOffset || cursor.key() == null) {
                        continue;
                    }
                    String key = StandardCharsets.UTF_8.decode(cursor.key()).toString();
                    ByteBuffer value = cursor.value();
                    byte[] copy = new byte[value.remaining()];
                    value.duplicate().get(copy);
                    byKey.computeIfAbsent(key, k -> new TreeMap<>()).put(cursor.offset(), copy);
                }
                position += batch.sizeInBytes();
            }
        } catch (DecodeException e) {
            // Stored batches were validated before they were replicated; an unreadable one is a bug, and skipping
            // it would silently leave a hole in some key's messages.
            throw new IllegalStateException("unreadable batch at byte " + position + " of a log read", e);
        }
    }
}
