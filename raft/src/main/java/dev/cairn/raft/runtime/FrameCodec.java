package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Membership;
import dev.cairn.raft.Message;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of the Raft traffic between two engines: one frame carries the messages of many groups from one
 * replica id to another (docs/multi-raft.md, "Transport"). An empty frame is a ping: proof of life for the failure
 * detector.
 *
 * <pre>
 * frame
 *   0  int    {@link #MAGIC} (format version 3)
 *   4  int    sender's replica id
 *   8  int    message count
 *  12  messages, each: int group, byte type, int from, int to, long term, then by type
 *        1 vote request     long lastIndex, long lastTerm, byte preVote, byte transfer
 *        2 vote response    byte granted, byte preVote
 *        3 append request   long prevIndex, long prevTerm, long commitIndex, int entry count,
 *                           entries: long term, long raftIndex, int dataLength, int headLength, data
 *                           (the entry's head, then its tail: Entry keeps the two apart)
 *        4 append response  byte success, long matchIndex, long hintIndex
 *        5 heartbeat        long commitIndex, byte quiesce
 *        6 heartbeat resp.  long commitIndex
 *        7 install snapshot long snapshotIndex, long snapshotTerm, voters
 *        8 snapshot chunk   long snapshotIndex, long snapshotTerm, voters, long offset, byte last, int length,
 *                           data (voters: byte count, then an int per voter: the configuration at the snapshot)
 *        9 snapshot ack     long snapshotIndex, long nextOffset
 *       10 timeout now      (nothing more)
 * </pre>
 *
 * Decoding trusts nothing: a frame over {@link #FRAME_BYTES_MAX}, a count or length that the bytes left cannot hold,
 * an unknown type or a message not from the frame's sender is a {@link FrameFormatException}; no allocation is sized
 * from a count before the bytes for it are known to be there.
 */
public final class FrameCodec {
    public static final int MAGIC = 0xCA1F_0003;
    /** The largest frame accepted: one entry of up to 16 MiB and room around it. */
    public static final int FRAME_BYTES_MAX = 32 * 1024 * 1024;
    /** Frames are cut once they pass this size, so that many small messages never make one huge frame. */
    static final int FRAME_BYTES_TARGET = 1024 * 1024;
    static final int HEADER_BYTES = 12;
    /** Group, type, from, to, term: what every message starts with. */
    private static final int MESSAGE_BASE_BYTES = 4 + 1 + 4 + 4 + 8;
    private static final int ENTRY_BASE_BYTES = 8 + 8 + 4 + 4;

    private static final byte VOTE_REQUEST = 1;
    private static final byte VOTE_RESPONSE = 2;
    private static final byte APPEND_REQUEST = 3;
    private static final byte APPEND_RESPONSE = 4;
    private static final byte HEARTBEAT = 5;
    private static final byte HEARTBEAT_RESPONSE = 6;
    private static final byte INSTALL_SNAPSHOT = 7;
    private static final byte SNAPSHOT_CHUNK = 8;
    private static final byte SNAPSHOT_ACK = 9;
    private static final byte TIMEOUT_NOW = 10;

    private FrameCodec() {
    }

    /** One group's message, as a frame carries it: a core message, or (message null) snapshot traffic. */
    public record GroupMessage(int group, Message message, SnapshotTraffic snapshot) {

        public GroupMessage(int group, Message message) {
            this(group, message, null);
        }

        public GroupMessage(int group, SnapshotTraffic snapshot) {
            this(group, null, snapshot);
        }

        public GroupMessage {
            if ((message == null) == (snapshot == null)) {
                throw new IllegalArgumentException("a group message is a core message or snapshot traffic");
            }
        }

        int from() {
            return message != null ? message.from() : snapshot.from();
        }
    }

    /** A decoded frame: who sent it and what it carries (nothing for a ping). */
    public record Frame(int sender, List<GroupMessage> messages) {
    }

    /** A ping: a frame with no message. */
    public static ByteBuffer ping(int sender) {
        return ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(sender).putInt(0).flip();
    }

    /**
     * The messages as frames of about {@link #FRAME_BYTES_TARGET} each (a single larger message gets a frame of its
     * own), in order. Each returned buffer is ready to read.
     */
    public static List<ByteBuffer> encode(int sender, List<GroupMessage> messages) {
        List<ByteBuffer> frames = new ArrayList<>();
        int from = 0;
        while (from < messages.size()) {
            int bytes = HEADER_BYTES;
            int to = from;
            while (to < messages.size()) {
                int size = sizeOf(messages.get(to));
                if (to > from && bytes + size > FRAME_BYTES_TARGET) {
                    break;
                }
                bytes += size;
                to++;
            }
            ByteBuffer frame = ByteBuffer.allocate(bytes).putInt(MAGIC).putInt(sender).putInt(to - from);
            for (GroupMessage groupMessage : messages.subList(from, to)) {
                write(frame, groupMessage);
            }
            frames.add(frame.flip());
            from = to;
        }
        return frames;
    }

    private static int sizeOf(GroupMessage groupMessage) {
        Message message = groupMessage.message();
        int body;
        if (groupMessage.snapshot() instanceof SnapshotTraffic.Chunk chunk) {
            body = 8 + 8 + votersBytes(chunk.voters()) + 8 + 1 + 4 + chunk.data().length;
        } else if (groupMessage.snapshot() != null) {
            body = 8 + 8;
        } else if (message instanceof Message.VoteRequest) {
            body = 8 + 8 + 1 + 1;
        } else if (message instanceof Message.TimeoutNow) {
            body = 0;
        } else if (message instanceof Message.VoteResponse) {
            body = 1 + 1;
        } else if (message instanceof Message.AppendRequest m) {
            body = 8 + 8 + 8 + 4;
            for (Entry entry : m.entries()) {
                body += ENTRY_BASE_BYTES + entry.dataLength();
            }
        } else if (message instanceof Message.AppendResponse) {
            body = 1 + 8 + 8;
        } else if (message instanceof Message.Heartbeat) {
            body = 8 + 1;
        } else if (message instanceof Message.HeartbeatResponse) {
            body = 8;
        } else {
            body = 8 + 8 + votersBytes(((Message.InstallSnapshot) message).voters());
        }
        return MESSAGE_BASE_BYTES + body;
    }

    private static int votersBytes(List<Integer> voters) {
        return 1 + Integer.BYTES * voters.size();
    }

    private static ByteBuffer putVoters(ByteBuffer out, List<Integer> voters) {
        out.put((byte) voters.size());
        voters.forEach(out::putInt);
        return out;
    }

    private static List<Integer> readVoters(ByteBuffer in) {
        int count = in.get();
        if (count < 0 || count > Membership.VOTERS_MAX) {
            throw new FrameFormatException("a snapshot configuration of " + count + " voters");
        }
        List<Integer> voters = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            voters.add(in.getInt());
        }
        return voters;
    }

    private static void write(ByteBuffer out, GroupMessage groupMessage) {
        Message message = groupMessage.message();
        out.putInt(groupMessage.group());
        if (groupMessage.snapshot() instanceof SnapshotTraffic.Chunk c) {
            out.put(SNAPSHOT_CHUNK).putInt(c.from()).putInt(c.to()).putLong(c.term()).putLong(c.snapshotIndex())
                    .putLong(c.snapshotTerm());
            putVoters(out, c.voters()).putLong(c.offset()).put(flag(c.last())).putInt(c.data().length)
                    .put(c.data());
        } else if (groupMessage.snapshot() instanceof SnapshotTraffic.Ack a) {
            out.put(SNAPSHOT_ACK).putInt(a.from()).putInt(a.to()).putLong(a.term()).putLong(a.snapshotIndex())
                    .putLong(a.nextOffset());
        } else if (message instanceof Message.VoteRequest m) {
            start(out, VOTE_REQUEST, m).putLong(m.lastIndex()).putLong(m.lastTerm()).put(flag(m.preVote()))
                    .put(flag(m.transfer()));
        } else if (message instanceof Message.TimeoutNow m) {
            start(out, TIMEOUT_NOW, m);
        } else if (message instanceof Message.VoteResponse m) {
            start(out, VOTE_RESPONSE, m).put(flag(m.granted())).put(flag(m.preVote()));
        } else if (message instanceof Message.AppendRequest m) {
            start(out, APPEND_REQUEST, m).putLong(m.prevIndex()).putLong(m.prevTerm()).putLong(m.commitIndex())
                    .putInt(m.entries().size());
            for (Entry entry : m.entries()) {
                out.putLong(entry.term()).putLong(entry.raftIndex()).putInt(entry.dataLength())
                        .putInt(entry.head().length);
                entry.writeData(out);   // a held tail must have been read back before: this refuses one
            }
        } else if (message instanceof Message.AppendResponse m) {
            start(out, APPEND_RESPONSE, m).put(flag(m.success())).putLong(m.matchIndex()).putLong(m.hintIndex());
        } else if (message instanceof Message.Heartbeat m) {
            start(out, HEARTBEAT, m).putLong(m.commitIndex()).put(flag(m.quiesce()));
        } else if (message instanceof Message.HeartbeatResponse m) {
            start(out, HEARTBEAT_RESPONSE, m).putLong(m.commitIndex());
        } else {
            Message.InstallSnapshot m = (Message.InstallSnapshot) message;
            putVoters(start(out, INSTALL_SNAPSHOT, m).putLong(m.snapshotIndex()).putLong(m.snapshotTerm()),
                    m.voters());
        }
    }

    private static ByteBuffer start(ByteBuffer out, byte type, Message message) {
        return out.put(type).putInt(message.from()).putInt(message.to()).putLong(message.term());
    }

    private static byte flag(boolean value) {
        return value ? (byte) 1 : (byte) 0;
    }

    /** Reads one whole frame (the buffer's remaining bytes). */
    public static Frame decode(ByteBuffer frame) {
        if (frame.remaining() > FRAME_BYTES_MAX) {
            throw new FrameFormatException("a frame of " + frame.remaining() + " bytes; at most " + FRAME_BYTES_MAX);
        }
        try {
            ByteBuffer in = frame.slice();
            if (in.getInt() != MAGIC) {
                throw new FrameFormatException("not a Cairn Raft frame (bad magic)");
            }
            int sender = in.getInt();
            int count = in.getInt();
            if (count < 0 || (long) count * MESSAGE_BASE_BYTES > in.remaining()) {
                throw new FrameFormatException("a count of " + count + " messages in " + in.remaining() + " bytes");
            }
            List<GroupMessage> messages = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                GroupMessage message = read(in);
                if (message.from() != sender) {
                    throw new FrameFormatException("a message from " + message.from() + " in a frame of "
                            + sender);
                }
                messages.add(message);
            }
            if (in.hasRemaining()) {
                throw new FrameFormatException(in.remaining() + " bytes after the last message");
            }
            return new Frame(sender, messages);
        } catch (BufferUnderflowException e) {
            throw new FrameFormatException("a frame cut short");
        } catch (IllegalArgumentException | AssertionError e) {
            // The message records check their fields (a term or index below 1 where one is required).
            throw new FrameFormatException("a message with impossible fields: " + e.getMessage());
        }
    }

    private static GroupMessage read(ByteBuffer in) {
        int group = in.getInt();
        byte type = in.get();
        int from = in.getInt();
        int to = in.getInt();
        long term = in.getLong();
        if (from < 1 || to < 1 || term < 0) {
            throw new FrameFormatException("a message from " + from + " to " + to + " in term " + term);
        }
        if (type == SNAPSHOT_CHUNK || type == SNAPSHOT_ACK) {
            return new GroupMessage(group, readSnapshotTraffic(in, type, from, to, term));
        }
        Message message = switch (type) {
            case VOTE_REQUEST -> new Message.VoteRequest(from, to, term, readIndex(in), readIndex(in), readFlag(in),
                    readFlag(in));
            case TIMEOUT_NOW -> new Message.TimeoutNow(from, to, term);
            case VOTE_RESPONSE -> new Message.VoteResponse(from, to, term, readFlag(in), readFlag(in));
            case APPEND_REQUEST -> readAppend(in, from, to, term);
            case APPEND_RESPONSE -> new Message.AppendResponse(from, to, term, readFlag(in), readIndex(in),
                    readIndex(in));
            case HEARTBEAT -> new Message.Heartbeat(from, to, term, readIndex(in), readFlag(in));
            case HEARTBEAT_RESPONSE -> new Message.HeartbeatResponse(from, to, term, readIndex(in));
            case INSTALL_SNAPSHOT -> readInstallSnapshot(in, from, to, term);
            default -> throw new FrameFormatException("unknown message type " + type);
        };
        return new GroupMessage(group, message);
    }

    private static SnapshotTraffic readSnapshotTraffic(ByteBuffer in, byte type, int from, int to, long term) {
        long snapshotIndex = in.getLong();
        if (snapshotIndex < 1) {
            throw new FrameFormatException("snapshot traffic for index " + snapshotIndex);
        }
        if (type == SNAPSHOT_ACK) {
            return new SnapshotTraffic.Ack(from, to, term, snapshotIndex, readIndex(in));
        }
        long snapshotTerm = in.getLong();
        List<Integer> voters = readVoters(in);
        long offset = readIndex(in);
        boolean last = readFlag(in);
        int length = in.getInt();
        if (snapshotTerm < 1 || snapshotTerm > term || length < 0 || length > in.remaining()) {
            throw new FrameFormatException("a snapshot chunk of " + length + " bytes of " + snapshotIndex + "/"
                    + snapshotTerm + " in term " + term + " with " + in.remaining() + " bytes left");
        }
        byte[] data = new byte[length];
        in.get(data);
        return new SnapshotTraffic.Chunk(from, to, term, snapshotIndex, snapshotTerm, voters, offset, last, data);
    }

    private static Message readInstallSnapshot(ByteBuffer in, int from, int to, long term) {
        long snapshotIndex = in.getLong();
        long snapshotTerm = in.getLong();
        if (snapshotIndex < 1 || snapshotTerm < 1 || snapshotTerm > term) {
            throw new FrameFormatException("a snapshot at " + snapshotIndex + "/" + snapshotTerm + " in term " + term);
        }
        return new Message.InstallSnapshot(from, to, term, snapshotIndex, snapshotTerm, readVoters(in));
    }

    private static Message readAppend(ByteBuffer in, int from, int to, long term) {
        long prevIndex = in.getLong();
        long prevTerm = in.getLong();
        long commitIndex = in.getLong();
        int count = in.getInt();
        if (prevIndex < 0 || prevTerm < 0 || prevTerm > term || commitIndex < 0) {
            throw new FrameFormatException("an append after " + prevIndex + "/" + prevTerm + " in term " + term
                    + " committing " + commitIndex);
        }
        if (count < 0 || (long) count * ENTRY_BASE_BYTES > in.remaining()) {
            throw new FrameFormatException("a count of " + count + " entries in " + in.remaining() + " bytes");
        }
        List<Entry> entries = new ArrayList<>(count);
        long lastTerm = Math.max(1, prevTerm);
        for (int i = 0; i < count; i++) {
            long entryTerm = in.getLong();
            long raftIndex = in.getLong();
            int length = in.getInt();
            int headLength = in.getInt();
            if (raftIndex != prevIndex + 1 + i || entryTerm < lastTerm || entryTerm > term) {
                throw new FrameFormatException("entry " + i + " of an append after " + prevIndex + "/" + prevTerm
                        + " in term " + term + " is " + raftIndex + "/" + entryTerm);
            }
            if (length < 0 || length > in.remaining() || headLength < 0 || headLength > length) {
                throw new FrameFormatException("an entry of " + length + " bytes (head " + headLength + ") in "
                        + in.remaining());
            }
            lastTerm = entryTerm;
            byte[] head = new byte[headLength];
            in.get(head);
            ByteBuffer tail = Entry.NO_TAIL;
            if (length > headLength) {
                byte[] tailBytes = new byte[length - headLength];
                in.get(tailBytes);
                tail = ByteBuffer.wrap(tailBytes);
            }
            entries.add(new Entry(entryTerm, raftIndex, head, tail));
        }
        return new Message.AppendRequest(from, to, term, prevIndex, prevTerm, entries, commitIndex);
    }

    /** An index or term field: never negative. */
    private static long readIndex(ByteBuffer in) {
        long value = in.getLong();
        if (value < 0) {
            throw new FrameFormatException("a negative index or term: " + value);
        }
        return value;
    }

    private static boolean readFlag(ByteBuffer in) {
        byte flag = in.get();
        if (flag != 0 && flag != 1) {
            throw new FrameFormatException("a flag of " + flag);
        }
        return flag == 1;
    }
}
