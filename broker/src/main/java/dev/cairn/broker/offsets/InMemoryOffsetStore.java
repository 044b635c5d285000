package dev.cairn.broker.offsets;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * An {@link OffsetStore} on the heap, for tests, the simulator and the Maelstrom node. It has the same
 * semantics as {@link RocksDbOffsetStore} (atomic commit with the applied Raft index, replays refused) and
 * keeps nothing across a process restart except through {@link #checkpoint}/{@link #restore}.
 *
 * <pre>
 *  checkpoint file &lt;target&gt;/offsets.snapshot, big-endian:
 *  magic i32 | count i32 | count x (keyLen i32 | key | valueLen i32 | value) | crc32c i32 (over all before it)
 * </pre>
 *
 * Keys and values use the {@link OffsetCodec} layout; a file failing its CRC is refused on restore.
 */
public final class InMemoryOffsetStore implements OffsetStore {
    static final String SNAPSHOT_FILE = "offsets.snapshot";
    static final int SNAPSHOT_MAGIC = 0x43524e4f;

    private final FileIo io;
    private final TreeMap<ByteKey, byte[]> entries = new TreeMap<>();

    public InMemoryOffsetStore(FileIo io) {
        this.io = io;
    }

    @Override
    public synchronized boolean commit(String topic, int partition, long raftIndex,
            Map<String, CommittedOffset> offsetsByGroup) {
        if (raftIndex <= appliedRaftIndex(topic, partition)) {
            return false;
        }
        Map<ByteKey, byte[]> batch = new HashMap<>();
        for (Map.Entry<String, CommittedOffset> entry : offsetsByGroup.entrySet()) {
            batch.put(new ByteKey(OffsetCodec.offsetKey(entry.getKey(), topic, partition)),
                    OffsetCodec.offsetValue(entry.getValue()));
        }
        batch.put(new ByteKey(OffsetCodec.appliedKey(topic, partition)), OffsetCodec.appliedValue(raftIndex));
        entries.putAll(batch);
        return true;
    }

    @Override
    public synchronized boolean delete(String topic, int partition, long raftIndex, String group) {
        if (raftIndex <= appliedRaftIndex(topic, partition)) {
            return false;
        }
        entries.remove(new ByteKey(OffsetCodec.offsetKey(group, topic, partition)));
        entries.put(new ByteKey(OffsetCodec.appliedKey(topic, partition)), OffsetCodec.appliedValue(raftIndex));
        return true;
    }

    @Override
    public synchronized void replacePartition(String topic, int partition, long raftIndex,
            Map<String, CommittedOffset> offsetsByGroup) {
        byte[] prefix = OffsetCodec.partitionPrefix(OffsetCodec.OFFSET_KEY_TYPE, topic, partition);
        entries.subMap(new ByteKey(prefix), true, new ByteKey(OffsetCodec.prefixEnd(prefix)), false).clear();
        for (Map.Entry<String, CommittedOffset> entry : offsetsByGroup.entrySet()) {
            entries.put(new ByteKey(OffsetCodec.offsetKey(entry.getKey(), topic, partition)),
                    OffsetCodec.offsetValue(entry.getValue()));
        }
        ByteKey applied = new ByteKey(OffsetCodec.appliedKey(topic, partition));
        if (raftIndex == NO_RAFT_INDEX) {
            entries.remove(applied);
        } else {
            entries.put(applied, OffsetCodec.appliedValue(raftIndex));
        }
    }

    @Override
    public synchronized long appliedRaftIndex(String topic, int partition) {
        byte[] value = entries.get(new ByteKey(OffsetCodec.appliedKey(topic, partition)));
        return value == null ? NO_RAFT_INDEX : OffsetCodec.decodeAppliedValue(value);
    }

    @Override
    public synchronized Optional<CommittedOffset> fetch(String group, String topic, int partition) {
        byte[] value = entries.get(new ByteKey(OffsetCodec.offsetKey(group, topic, partition)));
        return value == null ? Optional.empty() : Optional.of(OffsetCodec.decodeOffsetValue(value));
    }

    @Override
    public synchronized Map<String, CommittedOffset> fetchAll(String topic, int partition) {
        byte[] prefix = OffsetCodec.partitionPrefix(OffsetCodec.OFFSET_KEY_TYPE, topic, partition);
        Map<String, CommittedOffset> result = new TreeMap<>();
        for (Map.Entry<ByteKey, byte[]> entry : entries.tailMap(new ByteKey(prefix), true).entrySet()) {
            byte[] key = entry.getKey().bytes;
            if (key.length < prefix.length || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
                break;
            }
            result.put(OffsetCodec.groupOf(key, prefix.length), OffsetCodec.decodeOffsetValue(entry.getValue()));
        }
        return result;
    }

    @Override
    public synchronized void checkpoint(Path targetDirectory) {
        int size = 8 + 4;
        for (Map.Entry<ByteKey, byte[]> entry : entries.entrySet()) {
            size += 8 + entry.getKey().bytes.length + entry.getValue().length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putInt(SNAPSHOT_MAGIC).putInt(entries.size());
        for (Map.Entry<ByteKey, byte[]> entry : entries.entrySet()) {
            buffer.putInt(entry.getKey().bytes.length).put(entry.getKey().bytes);
            buffer.putInt(entry.getValue().length).put(entry.getValue());
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, buffer.position());
        buffer.putInt((int) crc.getValue()).flip();
        try {
            if (io.exists(targetDirectory)) {
                throw new IOException("checkpoint directory " + targetDirectory + " already exists");
            }
            io.createDirectories(targetDirectory);
            try (FileHandle file = io.open(targetDirectory.resolve(SNAPSHOT_FILE))) {
                file.write(buffer, 0);
                file.force();
            }
            io.fsyncDirectory(targetDirectory);
        } catch (IOException e) {
            throw new StorageException("checkpoint into " + targetDirectory, e);
        }
    }

    @Override
    public synchronized void restore(Path checkpointDirectory) {
        Path path = checkpointDirectory.resolve(SNAPSHOT_FILE);
        try (FileHandle file = io.open(path)) {
            long size = file.size();
            if (size < 12 || size > Integer.MAX_VALUE) {
                throw new IOException(path + ": snapshot of " + size + " bytes is not valid");
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) size);
            file.readFully(buffer, 0);
            CRC32C crc = new CRC32C();
            crc.update(buffer.array(), 0, (int) size - 4);
            if (buffer.getInt(0) != SNAPSHOT_MAGIC || (int) crc.getValue() != buffer.getInt((int) size - 4)) {
                throw new IOException(path + ": bad magic or CRC-32C");
            }
            buffer.position(4);
            int count = buffer.getInt();
            TreeMap<ByteKey, byte[]> loaded = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                byte[] key = new byte[buffer.getInt()];
                buffer.get(key);
                byte[] value = new byte[buffer.getInt()];
                buffer.get(value);
                loaded.put(new ByteKey(key), value);
            }
            entries.clear();
            entries.putAll(loaded);
        } catch (IOException | RuntimeException e) {
            throw new StorageException("restore from " + checkpointDirectory, e instanceof IOException ioe
                    ? ioe : new IOException(e.toString(), e));
        }
    }

    @Override
    public void close() {
        // Nothing to release.
    }

    /** A byte-array key ordered like RocksDB's default comparator (unsigned lexicographic). */
    private record ByteKey(byte[] bytes) implements Comparable<ByteKey> {
        @Override
        public int compareTo(ByteKey other) {
            return Arrays.compareUnsigned(bytes, other.bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ByteKey other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
