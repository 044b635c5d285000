package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.zip.CRC32C;

/** Reads one segment of a {@link RaftWal} back into the groups' states, checking every record (layout there). */
final class WalReplay {

    private WalReplay() {
    }

    /**
     * Replays {@code segment} into {@code groups}. A bad record ends the replay: in the last segment it is a torn
     * write and the file is cut before it; in an earlier one the log is corrupt and this throws.
     */
    static void replay(Path segment, boolean last, Map<Integer, RaftWal.GroupBuilder> groups) throws IOException {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new IOException(segment + " is larger than a segment can be: " + size + " bytes");
            }
            MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            int position = 0;
            String problem = null;
            while (position < size && problem == null) {
                problem = check(bytes, position, (int) size);
                if (problem == null) {
                    position = apply(bytes, position, groups);
                }
            }
            if (problem != null) {
                if (!last) {
                    throw new IOException(segment + " is corrupt at byte " + position + " (" + problem
                            + ") and is not the last segment: refusing to drop what follows");
                }
                channel.truncate(position);
                channel.force(true);
            }
        }
    }

    /** Null when a whole, intact record starts at {@code position}; otherwise what is wrong with it. */
    private static String check(ByteBuffer bytes, int position, int size) {
        if (size - position < RaftWal.HEADER_BYTES) {
            return "a header cut short";
        }
        int length = bytes.getInt(position);
        if (length < 5 || length > RaftWal.RECORD_BYTES_MAX) {
            return "length " + length;
        }
        if ((long) position + RaftWal.HEADER_BYTES + length > size) {
            return "a record cut short";
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.slice(position + RaftWal.HEADER_BYTES, length));
        if ((int) crc.getValue() != bytes.getInt(position + 4)) {
            return "a CRC mismatch";
        }
        return null;
    }

    /** Applies the intact record at {@code position}; returns where the next one starts. */
    private static int apply(ByteBuffer bytes, int position, Map<Integer, RaftWal.GroupBuilder> groups)
            throws IOException {
        int length = bytes.getInt(position);
        ByteBuffer body = bytes.slice(position + RaftWal.HEADER_BYTES, length);
        byte type = body.get();
        int group = body.getInt();
        RaftWal.GroupBuilder builder = groups.computeIfAbsent(group, g -> new RaftWal.GroupBuilder());
        if (type == RaftWal.TYPE_HARD_STATE && body.remaining() == 20) {
            long term = body.getLong();
            int votedFor = body.getInt();
            long commitIndex = body.getLong();
            if (term < 0 || commitIndex < 0) {
                throw new IOException("hard state record at byte " + position + " is malformed despite its CRC");
            }
            builder.hardState = new HardState(term, votedFor, commitIndex);
        } else if (type == RaftWal.TYPE_ENTRY && body.remaining() >= 20) {
            long term = body.getLong();
            long raftIndex = body.getLong();
            int dataLength = body.getInt();
            if (dataLength != body.remaining() || term < 1 || raftIndex < 1) {
                throw new IOException("entry record at byte " + position + " is malformed despite its CRC");
            }
            byte[] data = new byte[dataLength];
            body.get(data);
            builder.onEntry(new Entry(term, raftIndex, data));
        } else if (type == RaftWal.TYPE_SNAPSHOT && body.remaining() == 16) {
            long raftIndex = body.getLong();
            long term = body.getLong();
            if (raftIndex < 1 || term < 1) {
                throw new IOException("snapshot record at byte " + position + " is malformed despite its CRC");
            }
            builder.onSnapshot(new SnapshotMeta(raftIndex, term));
        } else {
            throw new IOException("record of type " + type + " at byte " + position + " is malformed despite its CRC");
        }
        return position + RaftWal.HEADER_BYTES + length;
    }
}
