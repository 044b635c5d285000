package dev.cairn.raft.storage;

import dev.cairn.raft.Membership;
import dev.cairn.raft.SnapshotMeta;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A snapshot record's body in a {@link RaftWal} (types 3 and 5), after type and group: long raftIndex, long term,
 * then the group's configuration at that index, a byte count and an int per voter. A record of 16 bytes (written
 * before configurations were carried) has no configuration: the replica's starting voters stand.
 */
final class WalSnapshotRecords {
    private static final int FIELDS_BYTES = 8 + 8;

    private WalSnapshotRecords() {
    }

    /** The body's length, type and group included. */
    static int bodyBytes(SnapshotMeta snapshot) {
        return 1 + 4 + FIELDS_BYTES + 1 + Integer.BYTES * snapshot.voters().size();
    }

    static void write(ByteBuffer body, byte type, int group, SnapshotMeta snapshot) {
        body.put(type).putInt(group).putLong(snapshot.raftIndex()).putLong(snapshot.term())
                .put((byte) snapshot.voters().size());
        snapshot.voters().forEach(body::putInt);
    }

    /** The snapshot a body holds after its type and group, or null when its fields do not add up. */
    static SnapshotMeta read(ByteBuffer body) {
        if (body.remaining() < FIELDS_BYTES) {
            return null;
        }
        long raftIndex = body.getLong();
        long term = body.getLong();
        if (raftIndex < 1 || term < 1) {
            return null;
        }
        if (!body.hasRemaining()) {
            return new SnapshotMeta(raftIndex, term);
        }
        int count = body.get();
        if (count < 0 || count > Membership.VOTERS_MAX || body.remaining() != count * Integer.BYTES) {
            return null;
        }
        List<Integer> voters = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            voters.add(body.getInt());
        }
        return new SnapshotMeta(raftIndex, term, voters);
    }
}
