package dev.cairn.broker.partition;

import dev.cairn.broker.config.Limits;
import dev.cairn.broker.partition.Command.Append;
import dev.cairn.broker.partition.Command.CommitOffset;
import dev.cairn.broker.partition.Command.DeleteOffset;
import dev.cairn.broker.partition.Command.DeleteRecords;
import dev.cairn.broker.partition.Command.EnforceRetention;
import dev.cairn.broker.partition.Command.Reconfigure;
import dev.cairn.protocol.ErrorCode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.nio.charset.StandardCharsets;

/**
 * Partition commands and results as bytes in the Raft log and in Raft replies.
 *
 * <pre>
 * command  = formatVersion u8 (1), type u8, body
 *   Append            (1): appendTimeMs i64, batch (the rest of the entry, verbatim)
 *   CommitOffset      (2): commitTimeMs i64, offset i64, leaderEpoch i32, groupId str, metadata str
 *   EnforceRetention  (3): nowMs i64
 *   DeleteOffset      (4): groupId str
 *   DeleteRecords     (5): offset i64
 *   Reconfigure       (6): count i32, count x (name str, value str), names in order
 *   Compact           (7): dirtyFromOffset i64, upToOffset i64, nowMs i64
 *   8-10, 12-13, 22: placements, markers, checked appends, {@link PlacementCodec}; 14-21 (result 12): coordinator's,
 *   {@link TxnCommandCodec}
 * result   = formatVersion u8 (1), type u8, body
 *   Appended   (1): baseOffset i64, lastOffset i64, logAppendTimeMs i64, logStartOffset i64, duplicate u8
 *   Rejected   (2): errorCode i16, message str
 *   Committed  (3): (empty)
 *   Retained   (4): logStartOffset i64, segmentsDeleted i32
 *   Fetched    (6): offset i64, leaderEpoch i32, metadata str
 *   OffsetDeleted (7): existed u8
 *   Reconfigured  (8): (empty)
 *   Compacted     (9): segmentsCleaned i32, cleanedUpTo i64, bytesBefore i64, bytesAfter i64, recordsRemoved i64,
 *                      keyMapFull u8
 *   (type 5, from brokers before leader epochs were kept, is offset i64, metadata str: decoded with epoch -1)
 * query    = {@link OffsetQueries}
 * str      = length i32 (-1 = null), UTF-8 bytes
 * </pre>
 *
 * The Append body keeps the batch verbatim at the end so decoding is a slice, not a copy.
 */
public final class CommandCodec {
    public static final byte FORMAT_VERSION = 1;
    private static final byte APPEND = 1;
    private static final byte COMMIT_OFFSET = 2;
    private static final byte ENFORCE_RETENTION = 3;
    private static final byte DELETE_OFFSET = 4;
    private static final byte DELETE_RECORDS = 5;
    private static final byte RECONFIGURE = 6;
    private static final byte COMPACT = 7;
    private static final byte APPENDED = 1;
    private static final byte REJECTED = 2;
    private static final byte COMMITTED = 3;
    private static final byte RETAINED = 4;
    private static final byte FETCHED_WITHOUT_EPOCH = 5;
    private static final byte FETCHED = 6;
    private static final byte OFFSET_DELETED = 7;
    private static final byte RECONFIGURED = 8;
    private static final byte COMPACTED = 9;
    private static final byte GROUPS_LISTED = 10;
    /** Group ids and commit metadata are bounded like Kafka's (offset.metadata.max.bytes is 4096). */
    public static final int STRING_BYTES_MAX = 32 * 1024;

    private CommandCodec() {
    }

    public static ByteBuffer encode(Command command) {
        if (command instanceof Append a) {
            ByteBuffer batch = a.batch().duplicate();
            ByteBuffer out = ByteBuffer.allocate(2 + 8 + batch.remaining());
            out.put(FORMAT_VERSION).put(APPEND).putLong(a.appendTimeMs()).put(batch);
            return out.flip();
        }
        if (command instanceof CommitOffset c) {
            byte[] group = utf8(c.groupId());
            byte[] metadata = utf8(c.metadata());
            ByteBuffer out = ByteBuffer.allocate(2 + 8 + 8 + 4 + stringSize(group) + stringSize(metadata));
            out.put(FORMAT_VERSION).put(COMMIT_OFFSET).putLong(c.commitTimeMs()).putLong(c.offset())
                    .putInt(c.leaderEpoch());
            putString(out, group);
            putString(out, metadata);
            return out.flip();
        }
        if (command instanceof EnforceRetention r) {
            return ByteBuffer.allocate(2 + 8).put(FORMAT_VERSION).put(ENFORCE_RETENTION).putLong(r.nowMs()).flip();
        }
        if (command instanceof DeleteRecords d) {
            return ByteBuffer.allocate(2 + 8).put(FORMAT_VERSION).put(DELETE_RECORDS).putLong(d.offset()).flip();
        }
        if (command instanceof Command.Compact c) {
            return ByteBuffer.allocate(2 + 8 * 3).put(FORMAT_VERSION).put(COMPACT).putLong(c.dirtyFromOffset())
                    .putLong(c.upToOffset()).putLong(c.nowMs()).flip();
        }
        if (command instanceof Reconfigure r) {
            return encodeReconfigure(r);
        }
        if (command instanceof DeleteOffset d) {
            byte[] group = utf8(d.groupId());
            ByteBuffer out = ByteBuffer.allocate(2 + stringSize(group));
            out.put(FORMAT_VERSION).put(DELETE_OFFSET);
            putString(out, group);
            return out.flip();
        }
        return PlacementCodec.encode(command);
    }

    private static ByteBuffer encodeReconfigure(Reconfigure reconfigure) {
        if (reconfigure.topicConfigs().size() > Limits.TOPIC_CONFIGS_MAX) {
            throw new IllegalArgumentException(reconfigure.topicConfigs().size() + " topic configs exceed "
                    + Limits.TOPIC_CONFIGS_MAX);
        }
        java.util.List<byte[]> strings = new java.util.ArrayList<>();
        int size = 2 + 4;
        for (java.util.Map.Entry<String, String> config : new java.util.TreeMap<>(reconfigure.topicConfigs())
                .entrySet()) {
            byte[] name = utf8(config.getKey());
            byte[] value = utf8(config.getValue());
            strings.add(name);
            strings.add(value);
            size += stringSize(name) + stringSize(value);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(FORMAT_VERSION).put(RECONFIGURE).putInt(reconfigure.topicConfigs().size());
        strings.forEach(bytes -> putString(out, bytes));
        return out.flip();
    }

    private static Reconfigure decodeReconfigure(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > Limits.TOPIC_CONFIGS_MAX) {
            throw new CommandFormatException("reconfiguration with " + count + " topic configs, outside [0, "
                    + Limits.TOPIC_CONFIGS_MAX + "]");
        }
        java.util.Map<String, String> configs = new java.util.HashMap<>();
        for (int i = 0; i < count; i++) {
            String name = getString(in);
            String value = getString(in);
            if (name == null || value == null || configs.put(name, value) != null) {
                throw new CommandFormatException("reconfiguration with a null or repeated topic config");
            }
        }
        return new Reconfigure(configs);
    }

    /** Bytes before the batch in an Append command: format version, type, append time. */
    public static final int APPEND_HEADER_BYTES = 2 + 8;

    /**
     * The command as parts to be sent as one entry without joining them: an Append is its 10-byte header and the
     * batch itself (not copied; it must not change until the command is applied), anything else one buffer.
     */
    public static ByteBuffer[] encodeParts(Command command) {
        if (command instanceof Append a) {
            ByteBuffer header = ByteBuffer.allocate(APPEND_HEADER_BYTES);
            header.put(FORMAT_VERSION).put(APPEND).putLong(a.appendTimeMs()).flip();
            return new ByteBuffer[] {header, a.batch().duplicate()};
        }
        if (command instanceof Command.AppendChecked checked) {
            return PlacementCodec.appendCheckedParts(checked);
        }
        return new ByteBuffer[] {encode(command)};
    }

    /**
     * Decodes a command held in several buffers (a Raft entry built from {@link #encodeParts}, as the leader has it),
     * without copying when they are the parts encodeParts made; any other split is joined first.
     */
    public static Command decodeCommand(java.util.List<ByteBuffer> parts) {
        if (parts.size() == 1) {
            return decodeCommand(parts.get(0));
        }
        ByteBuffer first = parts.get(0);
        if (parts.size() == 2 && first.remaining() == APPEND_HEADER_BYTES
                && first.get(first.position()) == FORMAT_VERSION && first.get(first.position() + 1) == APPEND) {
            return new Append(parts.get(1).slice(), first.getLong(first.position() + 2));
        }
        Command checked = parts.size() == 2 ? PlacementCodec.decodeCheckedParts(first, parts.get(1)) : null;
        if (checked != null) {
            return checked;
        }
        int size = 0;
        for (ByteBuffer part : parts) {
            size += part.remaining();
        }
        ByteBuffer joined = ByteBuffer.allocate(size);
        parts.forEach(part -> joined.put(part.duplicate()));
        return decodeCommand(joined.flip());
    }

    /** Decodes a command; the Append batch is a slice of {@code bytes}. Malformed bytes: CommandFormatException. */
    public static Command decodeCommand(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        try {
            checkVersion(in);
            byte type = in.get();
            switch (type) {
                case APPEND:
                    long appendTimeMs = in.getLong();
                    return new Append(in.slice(), appendTimeMs);
                case COMMIT_OFFSET:
                    long commitTimeMs = in.getLong();
                    long offset = in.getLong();
                    int leaderEpoch = in.getInt();
                    String group = getString(in);
                    String metadata = getString(in);
                    return new CommitOffset(group, offset, leaderEpoch, metadata, commitTimeMs);
                case ENFORCE_RETENTION:
                    return new EnforceRetention(in.getLong());
                case COMPACT:
                    return new Command.Compact(in.getLong(), in.getLong(), in.getLong());
                case DELETE_RECORDS:
                    return new DeleteRecords(in.getLong());
                case RECONFIGURE:
                    return decodeReconfigure(in);
                case DELETE_OFFSET:
                    String deletedGroup = getString(in);
                    if (deletedGroup == null) {
                        throw new CommandFormatException("offset deletion without a group id");
                    }
                    return new DeleteOffset(deletedGroup);
                default:
                    return PlacementCodec.decodeBody(type, in);
            }
        } catch (BufferUnderflowException e) {
            throw new CommandFormatException("partition command truncated");
        }
    }

    public static ByteBuffer encode(Result result) {
        if (result instanceof Result.Appended a) {
            return ByteBuffer.allocate(2 + 8 * 4 + 1).put(FORMAT_VERSION).put(APPENDED).putLong(a.baseOffset())
                    .putLong(a.lastOffset()).putLong(a.logAppendTimeMs()).putLong(a.logStartOffset())
                    .put((byte) (a.duplicate() ? 1 : 0)).flip();
        }
        if (result instanceof Result.Rejected r) {
            byte[] message = utf8(r.message());
            ByteBuffer out = ByteBuffer.allocate(2 + 2 + stringSize(message));
            out.put(FORMAT_VERSION).put(REJECTED).putShort(r.error().code());
            putString(out, message);
            return out.flip();
        }
        if (result instanceof Result.OffsetCommitted) {
            return ByteBuffer.allocate(2).put(FORMAT_VERSION).put(COMMITTED).flip();
        }
        if (result instanceof Result.Reconfigured) {
            return ByteBuffer.allocate(2).put(FORMAT_VERSION).put(RECONFIGURED).flip();
        }
        if (result instanceof Result.OffsetFetched f) {
            byte[] metadata = utf8(f.metadata());
            ByteBuffer out = ByteBuffer.allocate(2 + 8 + 4 + stringSize(metadata));
            out.put(FORMAT_VERSION).put(FETCHED).putLong(f.offset()).putInt(f.leaderEpoch());
            putString(out, metadata);
            return out.flip();
        }
        if (result instanceof Result.Compacted c) {
            return ByteBuffer.allocate(2 + 4 + 8 * 4 + 1).put(FORMAT_VERSION).put(COMPACTED)
                    .putInt(c.segmentsCleaned()).putLong(c.cleanedUpTo()).putLong(c.bytesBefore())
                    .putLong(c.bytesAfter()).putLong(c.recordsRemoved()).put((byte) (c.keyMapFull() ? 1 : 0)).flip();
        }
        if (result instanceof Result.Retained r) {
            return ByteBuffer.allocate(2 + 8 + 4).put(FORMAT_VERSION).put(RETAINED).putLong(r.logStartOffset())
                    .putInt(r.segmentsDeleted()).flip();
        }
        if (result instanceof Result.GroupsListed listed) {
            List<byte[]> names = listed.groups().stream().map(CommandCodec::utf8).toList();
            ByteBuffer out = ByteBuffer.allocate(2 + 4 + names.stream().mapToInt(CommandCodec::stringSize).sum());
            out.put(FORMAT_VERSION).put(GROUPS_LISTED).putInt(names.size());
            names.forEach(name -> putString(out, name));
            return out.flip();
        }
        if (result instanceof Result.OffsetDeleted d) {
            return ByteBuffer.allocate(2 + 1).put(FORMAT_VERSION).put(OFFSET_DELETED).put((byte) (d.existed() ? 1 : 0))
                    .flip();
        }
        return TxnCommandCodec.encode(result);
    }

    public static Result decodeResult(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        try {
            checkVersion(in);
            byte type = in.get();
            switch (type) {
                case APPENDED:
                    return new Result.Appended(in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.get() != 0);
                case REJECTED:
                    return new Result.Rejected(ErrorCode.forCode(in.getShort()), getString(in));
                case COMMITTED:
                    return Result.OFFSET_COMMITTED;
                case RECONFIGURED:
                    return Result.RECONFIGURED;
                case RETAINED:
                    return new Result.Retained(in.getLong(), in.getInt());
                case COMPACTED:
                    return new Result.Compacted(in.getInt(), in.getLong(), in.getLong(), in.getLong(), in.getLong(),
                            in.get() != 0);
                case OFFSET_DELETED:
                    return new Result.OffsetDeleted(in.get() != 0);
                case GROUPS_LISTED:
                    return new Result.GroupsListed(getStrings(in));
                case FETCHED_WITHOUT_EPOCH:
                    return new Result.OffsetFetched(in.getLong(), getString(in), -1);
                case FETCHED:
                    long offset = in.getLong();
                    int leaderEpoch = in.getInt();
                    return new Result.OffsetFetched(offset, getString(in), leaderEpoch);
                default:
                    return TxnCommandCodec.decodeResultBody(type, in);
            }
        } catch (BufferUnderflowException e) {
            throw new CommandFormatException("partition result truncated");
        }
    }

    private static void checkVersion(ByteBuffer in) {
        byte version = in.get();
        if (version != FORMAT_VERSION) {
            throw new CommandFormatException("partition command format version " + version + " is not "
                    + FORMAT_VERSION);
        }
    }

    static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    static int stringSize(byte[] bytes) {
        return 4 + (bytes == null ? 0 : bytes.length);
    }

    static void putString(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.putInt(-1);
            return;
        }
        out.putInt(bytes.length).put(bytes);
    }

    /** A count, then that many strings; the count is checked against what the bytes left can hold. */
    private static List<String> getStrings(ByteBuffer in) {
        int count = in.getInt();
        // Each string takes its 4-byte length at least.
        if (count < 0 || count > in.remaining() / 4) {
            throw new CommandFormatException("string count " + count + " outside [0, " + in.remaining() / 4 + "]");
        }
        List<String> strings = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            strings.add(getString(in));
        }
        return strings;
    }

    static String getString(ByteBuffer in) {
        int length = in.getInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > STRING_BYTES_MAX || length > in.remaining()) {
            throw new CommandFormatException("string length " + length + " outside [0, "
                    + Math.min(STRING_BYTES_MAX, in.remaining()) + "]");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
