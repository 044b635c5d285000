package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import dev.cairn.raft.Message.AppendRequest;
import dev.cairn.raft.Message.AppendResponse;
import dev.cairn.raft.Message.Heartbeat;
import dev.cairn.raft.Message.HeartbeatResponse;
import dev.cairn.raft.Message.InstallSnapshot;
import dev.cairn.raft.Message.VoteRequest;
import dev.cairn.raft.Message.VoteResponse;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Cairn's Raft messages as compact JSON arrays inside a Maelstrom message: {@code [group, kind, from, to, term,
 * ...]}, one kind letter per message type, entries as {@code [term, raftIndex, base64 data]}. A malformed message
 * is refused with {@link IllegalArgumentException}: the node drops it, as the network might have.
 */
final class RaftMessageJson {

    /** Entries one append message may carry when decoded: far above what an append of appenderBufferBytes holds. */
    static final int ENTRIES_PER_MESSAGE_MAX = 100_000;

    /** A Raft message of one partition group. */
    record GroupMessage(int group, Message message) {
    }

    private RaftMessageJson() {
    }

    static ArrayNode encode(int group, Message message) {
        ArrayNode array = MaelstromIo.mapper().createArrayNode().add(group);
        if (message instanceof VoteRequest m) {
            array.add("V").add(m.from()).add(m.to()).add(m.term()).add(m.lastIndex()).add(m.lastTerm())
                    .add(m.preVote());
        } else if (message instanceof VoteResponse m) {
            array.add("v").add(m.from()).add(m.to()).add(m.term()).add(m.granted()).add(m.preVote());
        } else if (message instanceof AppendRequest m) {
            array.add("A").add(m.from()).add(m.to()).add(m.term()).add(m.prevIndex()).add(m.prevTerm())
                    .add(m.commitIndex());
            ArrayNode entries = array.addArray();
            for (Entry entry : m.entries()) {
                entries.addArray().add(entry.term()).add(entry.raftIndex())
                        .add(Base64.getEncoder().encodeToString(entry.data()));
            }
        } else if (message instanceof AppendResponse m) {
            array.add("a").add(m.from()).add(m.to()).add(m.term()).add(m.success()).add(m.matchIndex())
                    .add(m.hintIndex());
        } else if (message instanceof Heartbeat m) {
            array.add("H").add(m.from()).add(m.to()).add(m.term()).add(m.commitIndex()).add(m.quiesce());
        } else if (message instanceof HeartbeatResponse m) {
            array.add("h").add(m.from()).add(m.to()).add(m.term()).add(m.commitIndex());
        } else if (message instanceof InstallSnapshot m) {
            array.add("S").add(m.from()).add(m.to()).add(m.term()).add(m.snapshotIndex()).add(m.snapshotTerm());
        } else {
            throw new IllegalArgumentException("no encoding for " + message);
        }
        return array;
    }

    static GroupMessage decode(JsonNode array) {
        require(array.isArray() && array.size() >= 5, "not a Raft message: " + array);
        int group = intAt(array, 0);
        String kind = array.get(1).asText();
        int from = intAt(array, 2);
        int to = intAt(array, 3);
        long term = longAt(array, 4);
        require(term >= 0, "negative term " + term);
        Message message = switch (kind) {
            case "V" -> new VoteRequest(from, to, term, longAt(array, 5), longAt(array, 6), boolAt(array, 7));
            case "v" -> new VoteResponse(from, to, term, boolAt(array, 5), boolAt(array, 6));
            case "A" -> appendRequest(from, to, term, longAt(array, 5), longAt(array, 6), entries(array.get(8)),
                    longAt(array, 7));
            case "a" -> new AppendResponse(from, to, term, boolAt(array, 5), longAt(array, 6), longAt(array, 7));
            case "H" -> new Heartbeat(from, to, term, longAt(array, 5), boolAt(array, 6));
            case "h" -> new HeartbeatResponse(from, to, term, longAt(array, 5));
            case "S" -> installSnapshot(from, to, term, longAt(array, 5), longAt(array, 6));
            default -> throw new IllegalArgumentException("unknown Raft message kind " + kind);
        };
        return new GroupMessage(group, message);
    }

    /**
     * The core trusts an append's shape (it checks it as an invariant): entries follow {@code prevIndex} one by one,
     * with terms that never go back and never pass the message's.
     */
    private static AppendRequest appendRequest(int from, int to, long term, long prevIndex, long prevTerm,
            List<Entry> entries, long commitIndex) {
        require(prevIndex >= 0 && prevTerm >= 0 && prevTerm <= term, "bad append position " + prevIndex + "/"
                + prevTerm);
        long expected = prevIndex + 1;
        long lastTerm = prevTerm;
        for (Entry entry : entries) {
            require(entry.raftIndex() == expected++, "entries not contiguous at " + entry.raftIndex());
            require(entry.term() >= lastTerm && entry.term() <= term, "entry term " + entry.term() + " out of order");
            lastTerm = entry.term();
        }
        return new AppendRequest(from, to, term, prevIndex, prevTerm, entries, commitIndex);
    }

    private static InstallSnapshot installSnapshot(int from, int to, long term, long snapshotIndex,
            long snapshotTerm) {
        require(snapshotIndex >= 1 && snapshotTerm >= 1 && snapshotTerm <= term, "bad snapshot " + snapshotIndex
                + "/" + snapshotTerm);
        return new InstallSnapshot(from, to, term, snapshotIndex, snapshotTerm);
    }

    private static List<Entry> entries(JsonNode array) {
        require(array != null && array.isArray() && array.size() <= ENTRIES_PER_MESSAGE_MAX, "bad entries");
        List<Entry> entries = new ArrayList<>(array.size());
        for (JsonNode entry : array) {
            require(entry.isArray() && entry.size() == 3, "bad entry " + entry);
            long term = longAt(entry, 0);
            long raftIndex = longAt(entry, 1);
            require(term >= 1 && raftIndex >= 1, "bad entry position " + entry);
            entries.add(new Entry(term, raftIndex, Base64.getDecoder().decode(entry.get(2).asText())));
        }
        return entries;
    }

    private static int intAt(JsonNode array, int i) {
        JsonNode node = array.get(i);
        require(node != null && node.canConvertToInt(), "field " + i + " is not an int");
        return node.intValue();
    }

    private static long longAt(JsonNode array, int i) {
        JsonNode node = array.get(i);
        require(node != null && node.canConvertToLong(), "field " + i + " is not a number");
        return node.longValue();
    }

    private static boolean boolAt(JsonNode array, int i) {
        JsonNode node = array.get(i);
        require(node != null && node.isBoolean(), "field " + i + " is not a boolean");
        return node.booleanValue();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
