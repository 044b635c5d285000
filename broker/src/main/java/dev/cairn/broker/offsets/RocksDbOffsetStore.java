package dev.cairn.broker.offsets;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.Checkpoint;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The {@link OffsetStore} of a broker data directory: one RocksDB (default column family) shared by every
 * partition group whose replica lives in that directory. The only class that imports {@code org.rocksdb}.
 *
 * <pre>
 *  &lt;log.dir&gt;/__offsets/            RocksDB files (MANIFEST, CURRENT, OPTIONS, *.sst, *.log WAL)
 *
 *  key                                                            value
 *  0x01 | topicLen u16 | topic | partition i32 | groupLen u16 | group  -&gt;  ver u8 | offset i64 | commitTimeMs i64
 *                                                                          | metadataLen i32 (-1 null) | metadata
 *  0x02 | topicLen u16 | topic | partition i32                         -&gt;  appliedRaftIndex i64
 * </pre>
 *
 * <p>Entry sizes vary with the names: 23 bytes of fixed value plus metadata; keys 9 bytes plus names (see
 * {@link OffsetCodec}). Each {@link #commit} is one {@link WriteBatch} holding the offsets and the partition
 * group's applied Raft index, so after a crash either both or neither are present. RocksDB checksums its WAL
 * records and SST blocks (CRC-32C); this class adds none. After a crash RocksDB replays its WAL to a
 * consistent prefix of write batches; writes are not fsynced one by one unless opened with
 * {@code syncWrites}, and whatever a power failure takes is re-applied by the Raft replay, which resumes
 * after {@link #appliedRaftIndex}. Snapshots use RocksDB's Checkpoint API (hard links where possible).
 *
 * <p>Threads: any; RocksDB is thread-safe. {@link #commit} for one partition group must come from that
 * group's single apply thread (the applied-index check and the write are not atomic against another
 * writer of the same group). {@link #restore} and {@link #close} exclude all other calls.
 */
public final class RocksDbOffsetStore implements OffsetStore {
    private static final int COPY_BYTES = 1 << 20;

    private final FileIo io;
    private final Path directory;
    private final boolean syncWrites;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private RocksDB db;
    private Options options;
    private WriteOptions writeOptions;

    private RocksDbOffsetStore(FileIo io, Path directory, boolean syncWrites) {
        this.io = io;
        this.directory = directory;
        this.syncWrites = syncWrites;
    }

    /**
     * Opens (creating if needed) the store in {@code directory}. With {@code syncWrites} every commit is
     * fsynced before it returns; without, durability comes from the Raft replay.
     */
    public static RocksDbOffsetStore open(FileIo io, Path directory, boolean syncWrites) {
        RocksDB.loadLibrary();
        RocksDbOffsetStore store = new RocksDbOffsetStore(io, directory, syncWrites);
        try {
            io.createDirectories(directory);
        } catch (IOException e) {
            throw new StorageException("cannot create offset store directory " + directory, e);
        }
        store.openDb();
        return store;
    }

    private void openDb() {
        options = new Options().setCreateIfMissing(true);
        writeOptions = new WriteOptions().setSync(syncWrites);
        try {
            db = RocksDB.open(options, directory.toString());
        } catch (RocksDBException e) {
            options.close();
            writeOptions.close();
            throw failure("cannot open offset store " + directory, e);
        }
    }

    private static StorageException failure(String message, RocksDBException e) {
        Status status = e.getStatus();
        boolean diskFull = status != null && status.getSubCode() == Status.SubCode.NoSpace;
        return new StorageException(message, e, diskFull);
    }

    @Override
    public boolean commit(String topic, int partition, long raftIndex, Map<String, CommittedOffset> offsetsByGroup) {
        lock.readLock().lock();
        try {
            long applied = appliedRaftIndex(topic, partition);
            if (raftIndex <= applied) {
                return false;
            }
            try (WriteBatch batch = new WriteBatch()) {
                for (Map.Entry<String, CommittedOffset> entry : offsetsByGroup.entrySet()) {
                    batch.put(OffsetCodec.offsetKey(entry.getKey(), topic, partition),
                            OffsetCodec.offsetValue(entry.getValue()));
                }
                batch.put(OffsetCodec.appliedKey(topic, partition), OffsetCodec.appliedValue(raftIndex));
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw failure("commit of raft index " + raftIndex + " for " + topic + "-" + partition, e);
            }
            return true;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean delete(String topic, int partition, long raftIndex, String group) {
        lock.readLock().lock();
        try {
            if (raftIndex <= appliedRaftIndex(topic, partition)) {
                return false;
            }
            try (WriteBatch batch = new WriteBatch()) {
                batch.delete(OffsetCodec.offsetKey(group, topic, partition));
                batch.put(OffsetCodec.appliedKey(topic, partition), OffsetCodec.appliedValue(raftIndex));
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw failure("offset deletion at raft index " + raftIndex + " for " + topic + "-" + partition, e);
            }
            return true;
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public void replacePartition(String topic, int partition, long raftIndex,
            Map<String, CommittedOffset> offsetsByGroup) {
        byte[] prefix = OffsetCodec.partitionPrefix(OffsetCodec.OFFSET_KEY_TYPE, topic, partition);
        lock.readLock().lock();
        try (WriteBatch batch = new WriteBatch()) {
            batch.deleteRange(prefix, OffsetCodec.prefixEnd(prefix));
            for (Map.Entry<String, CommittedOffset> entry : offsetsByGroup.entrySet()) {
                batch.put(OffsetCodec.offsetKey(entry.getKey(), topic, partition),
                        OffsetCodec.offsetValue(entry.getValue()));
            }
            if (raftIndex == NO_RAFT_INDEX) {
                batch.delete(OffsetCodec.appliedKey(topic, partition));
            } else {
                batch.put(OffsetCodec.appliedKey(topic, partition), OffsetCodec.appliedValue(raftIndex));
            }
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw failure("replacement of " + topic + "-" + partition + " at raft index " + raftIndex, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long appliedRaftIndex(String topic, int partition) {
        lock.readLock().lock();
        try {
            byte[] value = db.get(OffsetCodec.appliedKey(topic, partition));
            return value == null ? NO_RAFT_INDEX : OffsetCodec.decodeAppliedValue(value);
        } catch (RocksDBException e) {
            throw failure("read of applied index for " + topic + "-" + partition, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public Optional<CommittedOffset> fetch(String group, String topic, int partition) {
        lock.readLock().lock();
        try {
            byte[] value = db.get(OffsetCodec.offsetKey(group, topic, partition));
            return value == null ? Optional.empty() : Optional.of(OffsetCodec.decodeOffsetValue(value));
        } catch (RocksDBException e) {
            throw failure("read of offset for " + group + " on " + topic + "-" + partition, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public Map<String, CommittedOffset> fetchAll(String topic, int partition) {
        byte[] prefix = OffsetCodec.partitionPrefix(OffsetCodec.OFFSET_KEY_TYPE, topic, partition);
        Map<String, CommittedOffset> result = new TreeMap<>();
        lock.readLock().lock();
        try (RocksIterator iterator = db.newIterator()) {
            for (iterator.seek(prefix); iterator.isValid(); iterator.next()) {
                byte[] key = iterator.key();
                if (key.length < prefix.length || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
                    break;
                }
                result.put(OffsetCodec.groupOf(key, prefix.length), OffsetCodec.decodeOffsetValue(iterator.value()));
            }
        } finally {
            lock.readLock().unlock();
        }
        return result;
    }

    @Override
    public void checkpoint(Path targetDirectory) {
        lock.readLock().lock();
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(targetDirectory.toString());
        } catch (RocksDBException e) {
            throw failure("checkpoint of " + directory + " into " + targetDirectory, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Closes the database, replaces its files with those of the checkpoint, fsyncs them and reopens. Not
     * atomic: a crash midway leaves a store that must be restored again (the snapshot installation repeats).
     */
    @Override
    public void restore(Path checkpointDirectory) {
        lock.writeLock().lock();
        try {
            closeDb();
            for (Path file : io.list(directory)) {
                io.delete(file);
            }
            for (Path source : io.list(checkpointDirectory)) {
                copy(source, directory.resolve(source.getFileName().toString()));
            }
            io.fsyncDirectory(directory);
            openDb();
        } catch (IOException e) {
            throw new StorageException("restore of " + directory + " from " + checkpointDirectory, e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void copy(Path source, Path target) throws IOException {
        try (FileHandle in = io.open(source); FileHandle out = io.open(target)) {
            ByteBuffer buffer = ByteBuffer.allocate(COPY_BYTES);
            long position = 0;
            long size = in.size();
            while (position < size) {
                buffer.clear();
                buffer.limit((int) Math.min(COPY_BYTES, size - position));
                in.readFully(buffer, position);
                buffer.flip();
                out.write(buffer, position);
                position += buffer.limit();
            }
            out.truncate(size);
            out.force();
        }
    }

    private void closeDb() {
        if (db != null) {
            db.close();
            writeOptions.close();
            options.close();
            db = null;
        }
    }

    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            closeDb();
        } finally {
            lock.writeLock().unlock();
        }
    }
}
