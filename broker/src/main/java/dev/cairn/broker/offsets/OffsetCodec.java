package dev.cairn.broker.offsets;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.nio.charset.StandardCharsets;

/**
 * The byte layout of offset-store keys and values, shared by {@link RocksDbOffsetStore} (its RocksDB keys)
 * and {@link InMemoryOffsetStore} (its checkpoint file). All integers big-endian; strings are u16 length
 * plus UTF-8. Keys put the partition first so one partition's entries form a contiguous range.
 *
 * <pre>
 *  offset key : 0x01 | topicLen u16 | topic | partition i32 | groupLen u16 | group
 *  offset val : version u8 (2) | offset i64 | commitTimeMs i64 | leaderEpoch i32 | metadataLen i32 (-1 = null)
 *               | metadata
 *               (version 1, written before leader epochs were kept, has no leaderEpoch: read as -1)
 *  applied key: 0x02 | topicLen u16 | topic | partition i32
 *  applied val: raftIndex i64
 * </pre>
 */
final class OffsetCodec {
    static final byte OFFSET_KEY_TYPE = 1;
    static final byte APPLIED_KEY_TYPE = 2;
    static final byte VALUE_VERSION = 2;
    static final byte VALUE_VERSION_WITHOUT_EPOCH = 1;
    static final int STRING_BYTES_MAX = 0xFFFF;

    private OffsetCodec() {
    }

    static byte[] partitionPrefix(byte type, String topic, int partition) {
        byte[] name = utf8(topic);
        return ByteBuffer.allocate(1 + 2 + name.length + 4).put(type).putShort((short) name.length).put(name)
                .putInt(partition).array();
    }

    /** The smallest key above every key that starts with {@code prefix} (prefixes never end in 0xFF bytes only). */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xFF) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        throw new IllegalArgumentException("prefix of 0xFF bytes only");
    }

    static byte[] offsetKey(String group, String topic, int partition) {
        byte[] prefix = partitionPrefix(OFFSET_KEY_TYPE, topic, partition);
        byte[] name = utf8(group);
        return ByteBuffer.allocate(prefix.length + 2 + name.length).put(prefix).putShort((short) name.length)
                .put(name).array();
    }

    /** The group named by an offset key that starts with {@code prefix}. */
    static String groupOf(byte[] key, int prefixLength) {
        ByteBuffer buffer = ByteBuffer.wrap(key);
        int length = Short.toUnsignedInt(buffer.getShort(prefixLength));
        return new String(key, prefixLength + 2, length, StandardCharsets.UTF_8);
    }

    static byte[] appliedKey(String topic, int partition) {
        return partitionPrefix(APPLIED_KEY_TYPE, topic, partition);
    }

    static byte[] offsetValue(OffsetStore.CommittedOffset committed) {
        byte[] metadata = committed.metadata() == null ? null : committed.metadata().getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(1 + 8 + 8 + 4 + 4 + (metadata == null ? 0 : metadata.length));
        buffer.put(VALUE_VERSION).putLong(committed.offset()).putLong(committed.commitTimeMs())
                .putInt(committed.leaderEpoch());
        buffer.putInt(metadata == null ? -1 : metadata.length);
        if (metadata != null) {
            buffer.put(metadata);
        }
        return buffer.array();
    }

    static OffsetStore.CommittedOffset decodeOffsetValue(byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        byte version = buffer.get();
        if (version != VALUE_VERSION && version != VALUE_VERSION_WITHOUT_EPOCH) {
            throw new IllegalStateException("offset value version " + version + ", expected "
                    + VALUE_VERSION_WITHOUT_EPOCH + " or " + VALUE_VERSION);
        }
        long offset = buffer.getLong();
        long commitTimeMs = buffer.getLong();
        int leaderEpoch = version == VALUE_VERSION ? buffer.getInt() : OffsetStore.CommittedOffset.NO_LEADER_EPOCH;
        int length = buffer.getInt();
        String metadata = length < 0 ? null
                : new String(value, buffer.position(), length, StandardCharsets.UTF_8);
        return new OffsetStore.CommittedOffset(offset, metadata, commitTimeMs, leaderEpoch);
    }

    static byte[] appliedValue(long raftIndex) {
        return ByteBuffer.allocate(8).putLong(raftIndex).array();
    }

    static long decodeAppliedValue(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    private static byte[] utf8(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > STRING_BYTES_MAX) {
            throw new IllegalArgumentException("name of " + bytes.length + " bytes exceeds " + STRING_BYTES_MAX);
        }
        return bytes;
    }
}
