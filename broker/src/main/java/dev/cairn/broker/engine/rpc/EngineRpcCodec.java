package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Result;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The leader RPC's frames ({@link EngineRpc}). They travel on the engine's connections, one frame each, and begin
 * with a magic of their own so that the transport's inbound side can tell them from the engine's frames (whose magic
 * is {@code FrameCodec.MAGIC}, 0xCA1F0001) by peeking at the first int ({@link #isRpcFrame}).
 *
 * <pre>
 * frame    = magic i32, sender i32 (node id, &gt;= 0), correlationId i64, kind u8, body
 * request  (magic {@link #REQUEST_MAGIC}):
 *   SUBMIT              (1): group i32, timeoutMs i32, command (CommandCodec's format, the rest of the frame)
 *   COMMITTED_OFFSET    (2): group i32, groupId str, requireStable u8
 *   COMMITTED_GROUPS    (3): group i32
 *   TRANSFER_LEADERSHIP (4): group i32, toNode i32, timeoutMs i32
 *   COMMITTED_BATCHES   (5): group i32, fromOffset i64 (&gt;= 0), maxBytes i32 (1 to {@link #BATCHES_BYTES_MAX})
 * response (magic {@link #RESPONSE_MAGIC}):
 *   RESULT              (1): result (CommandCodec's format, the rest of the frame)
 *   TRANSFERRED         (2): transferred u8
 *   BATCHES             (3): whole record batches (the rest of the frame, possibly none)
 * str      = length i32 (0 to {@link #GROUP_ID_BYTES_MAX}), UTF-8 bytes
 * u8 flags are 0 or 1; group ids and node ids are &gt;= 0; timeouts are 1 to {@link #TIMEOUT_MS_MAX}
 * </pre>
 *
 * Decoding trusts nothing: every length is checked against the bytes left before anything is allocated for it, an
 * unknown magic or kind, a flag other than 0 or 1, a value out of range and bytes left over after a fixed-size body
 * are all refused with {@link RpcFormatException}. A submitted Append's batch is a slice of the frame, not a copy.
 */
public final class EngineRpcCodec {
    /** The first int of a request frame. */
    public static final int REQUEST_MAGIC = 0xCA1F_0100;
    /** The first int of a response frame. */
    public static final int RESPONSE_MAGIC = 0xCA1F_0101;
    /** Magic, sender, correlation id, kind. */
    public static final int HEADER_BYTES = 4 + 4 + 8 + 1;
    /** The longest a caller may wait for an answer (and a leader be asked to wait); longer timeouts are cut to it. */
    public static final int TIMEOUT_MS_MAX = 300_000;
    /** The longest consumer group id a request carries, as the partition's own commands bound it. */
    public static final int GROUP_ID_BYTES_MAX = CommandCodec.STRING_BYTES_MAX;
    /** The most bytes of batches one read asks for (an answer holds at least one whole batch, which may be more). */
    public static final int BATCHES_BYTES_MAX = 8 * 1024 * 1024;

    static final byte SUBMIT = 1;
    static final byte COMMITTED_OFFSET = 2;
    static final byte COMMITTED_GROUPS = 3;
    static final byte TRANSFER_LEADERSHIP = 4;
    static final byte COMMITTED_BATCHES = 5;
    static final byte RESULT = 1;
    static final byte TRANSFERRED = 2;
    static final byte BATCHES = 3;

    private EngineRpcCodec() {
    }

    /** Whether {@code frame} is an RPC frame (by its first int), without moving its position. */
    public static boolean isRpcFrame(ByteBuffer frame) {
        if (frame.remaining() < Integer.BYTES) {
            return false;
        }
        int magic = frame.getInt(frame.position());
        return magic == REQUEST_MAGIC || magic == RESPONSE_MAGIC;
    }

    /** The request as one frame. Throws IllegalArgumentException for a value the format cannot carry. */
    public static ByteBuffer encodeRequest(int sender, long correlationId, RpcRequest request) {
        checkNonNegative("sender node id", sender);
        checkNonNegative("group", request.group());
        if (request instanceof RpcRequest.Submit submit) {
            checkTimeout(submit.timeoutMs());
            ByteBuffer[] command = CommandCodec.encodeParts(submit.command());
            int bytes = HEADER_BYTES + 4 + 4;
            for (ByteBuffer part : command) {
                bytes += part.remaining();
            }
            ByteBuffer out = header(bytes, REQUEST_MAGIC, sender, correlationId, SUBMIT).putInt(submit.group())
                    .putInt(submit.timeoutMs());
            for (ByteBuffer part : command) {
                out.put(part.duplicate());
            }
            return out.flip();
        }
        if (request instanceof RpcRequest.CommittedOffset read) {
            if (read.groupId() == null) {
                throw new IllegalArgumentException("a committed offset read without a consumer group id");
            }
            byte[] groupId = read.groupId().getBytes(StandardCharsets.UTF_8);
            if (groupId.length > GROUP_ID_BYTES_MAX) {
                throw new IllegalArgumentException("a consumer group id of " + groupId.length + " bytes; at most "
                        + GROUP_ID_BYTES_MAX);
            }
            return header(HEADER_BYTES + 4 + 4 + groupId.length + 1, REQUEST_MAGIC, sender, correlationId,
                    COMMITTED_OFFSET).putInt(read.group()).putInt(groupId.length).put(groupId)
                    .put(flag(read.requireStable())).flip();
        }
        if (request instanceof RpcRequest.CommittedGroups read) {
            return header(HEADER_BYTES + 4, REQUEST_MAGIC, sender, correlationId, COMMITTED_GROUPS)
                    .putInt(read.group()).flip();
        }
        if (request instanceof RpcRequest.CommittedBatches read) {
            if (read.fromOffset() < 0 || read.maxBytes() < 1 || read.maxBytes() > BATCHES_BYTES_MAX) {
                throw new IllegalArgumentException("a read of batches from " + read.fromOffset() + ", "
                        + read.maxBytes() + " bytes");
            }
            return header(HEADER_BYTES + 4 + 8 + 4, REQUEST_MAGIC, sender, correlationId, COMMITTED_BATCHES)
                    .putInt(read.group()).putLong(read.fromOffset()).putInt(read.maxBytes()).flip();
        }
        RpcRequest.TransferLeadership transfer = (RpcRequest.TransferLeadership) request;
        checkNonNegative("target node id", transfer.toNode());
        checkTimeout(transfer.timeoutMs());
        return header(HEADER_BYTES + 4 + 4 + 4, REQUEST_MAGIC, sender, correlationId, TRANSFER_LEADERSHIP)
                .putInt(transfer.group()).putInt(transfer.toNode()).putInt(transfer.timeoutMs()).flip();
    }

    /** The response as one frame. Throws IllegalArgumentException for a Result CommandCodec cannot encode. */
    public static ByteBuffer encodeResponse(int sender, long correlationId, RpcResponse response) {
        checkNonNegative("sender node id", sender);
        if (response instanceof RpcResponse.Answered answered) {
            ByteBuffer result = CommandCodec.encode(answered.result());
            return header(HEADER_BYTES + result.remaining(), RESPONSE_MAGIC, sender, correlationId, RESULT)
                    .put(result).flip();
        }
        if (response instanceof RpcResponse.Batches batches) {
            ByteBuffer bytes = batches.batches().duplicate();
            return header(HEADER_BYTES + bytes.remaining(), RESPONSE_MAGIC, sender, correlationId, BATCHES)
                    .put(bytes).flip();
        }
        boolean transferred = ((RpcResponse.Transferred) response).transferred();
        return header(HEADER_BYTES + 1, RESPONSE_MAGIC, sender, correlationId, TRANSFERRED).put(flag(transferred))
                .flip();
    }

    /** Decodes one frame without moving {@code frame}'s position; anything malformed is an RpcFormatException. */
    public static RpcFrame decode(ByteBuffer frame) throws RpcFormatException {
        ByteBuffer in = frame.duplicate();
        if (in.remaining() < HEADER_BYTES) {
            throw new RpcFormatException("an RPC frame of " + in.remaining() + " bytes, shorter than its header");
        }
        int magic = in.getInt();
        if (magic != REQUEST_MAGIC && magic != RESPONSE_MAGIC) {
            throw new RpcFormatException(String.format("magic 0x%08X is not an RPC frame's", magic));
        }
        int sender = nonNegative("sender node id", in.getInt());
        long correlationId = in.getLong();
        byte kind = in.get();
        try {
            return magic == REQUEST_MAGIC ? new RpcFrame.Request(sender, correlationId, decodeRequest(kind, in))
                    : new RpcFrame.Response(sender, correlationId, decodeResponse(kind, in));
        } catch (BufferUnderflowException e) {
            throw new RpcFormatException("an RPC frame of kind " + kind + " truncated");
        }
    }

    private static RpcRequest decodeRequest(byte kind, ByteBuffer in) throws RpcFormatException {
        switch (kind) {
            case SUBMIT: {
                int group = nonNegative("group", in.getInt());
                int timeoutMs = timeout(in.getInt());
                return new RpcRequest.Submit(group, timeoutMs, command(in.slice()));
            }
            case COMMITTED_OFFSET: {
                int group = nonNegative("group", in.getInt());
                String groupId = groupId(in);
                boolean requireStable = flag(in.get());
                return end(in, new RpcRequest.CommittedOffset(group, groupId, requireStable));
            }
            case COMMITTED_GROUPS:
                return end(in, new RpcRequest.CommittedGroups(nonNegative("group", in.getInt())));
            case TRANSFER_LEADERSHIP: {
                int group = nonNegative("group", in.getInt());
                int toNode = nonNegative("target node id", in.getInt());
                int timeoutMs = timeout(in.getInt());
                return end(in, new RpcRequest.TransferLeadership(group, toNode, timeoutMs));
            }
            case COMMITTED_BATCHES: {
                int group = nonNegative("group", in.getInt());
                long fromOffset = in.getLong();
                int maxBytes = in.getInt();
                if (fromOffset < 0 || maxBytes < 1 || maxBytes > BATCHES_BYTES_MAX) {
                    throw new RpcFormatException("a read of batches from " + fromOffset + ", " + maxBytes
                            + " bytes");
                }
                return end(in, new RpcRequest.CommittedBatches(group, fromOffset, maxBytes));
            }
            default:
                throw new RpcFormatException("unknown RPC request kind " + kind);
        }
    }

    private static RpcResponse decodeResponse(byte kind, ByteBuffer in) throws RpcFormatException {
        switch (kind) {
            case RESULT:
                return new RpcResponse.Answered(result(in.slice()));
            case TRANSFERRED:
                return end(in, new RpcResponse.Transferred(flag(in.get())));
            case BATCHES:
                return new RpcResponse.Batches(in.slice());
            default:
                throw new RpcFormatException("unknown RPC response kind " + kind);
        }
    }

    /**
     * CommandCodec refuses malformed bytes with CommandFormatException, and the records it builds may refuse decoded
     * values with other runtime exceptions; whichever it is, the frame is malformed and must not reach the caller.
     */
    private static Command command(ByteBuffer bytes) throws RpcFormatException {
        try {
            return CommandCodec.decodeCommand(bytes);
        } catch (RuntimeException e) {
            throw new RpcFormatException("submitted command: " + e.getMessage());
        }
    }

    /** As {@link #command}, for a Result; a null Result is refused too. */
    private static Result result(ByteBuffer bytes) throws RpcFormatException {
        Result result;
        try {
            result = CommandCodec.decodeResult(bytes);
        } catch (RuntimeException e) {
            throw new RpcFormatException("answered result: " + e.getMessage());
        }
        if (result == null) {
            throw new RpcFormatException("answered result decodes to nothing");
        }
        return result;
    }

    private static String groupId(ByteBuffer in) throws RpcFormatException {
        int length = in.getInt();
        if (length < 0 || length > GROUP_ID_BYTES_MAX || length > in.remaining()) {
            throw new RpcFormatException("consumer group id length " + length + " outside [0, "
                    + Math.min(GROUP_ID_BYTES_MAX, in.remaining()) + "]");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static <T> T end(ByteBuffer in, T decoded) throws RpcFormatException {
        if (in.hasRemaining()) {
            throw new RpcFormatException(in.remaining() + " bytes after the end of an RPC frame's body");
        }
        return decoded;
    }

    private static boolean flag(byte value) throws RpcFormatException {
        if (value != 0 && value != 1) {
            throw new RpcFormatException("flag " + value + " is neither 0 nor 1");
        }
        return value == 1;
    }

    private static byte flag(boolean value) {
        return (byte) (value ? 1 : 0);
    }

    private static int nonNegative(String what, int value) throws RpcFormatException {
        if (value < 0) {
            throw new RpcFormatException(what + " " + value + " is negative");
        }
        return value;
    }

    private static int timeout(int timeoutMs) throws RpcFormatException {
        if (timeoutMs < 1 || timeoutMs > TIMEOUT_MS_MAX) {
            throw new RpcFormatException("timeout " + timeoutMs + " ms outside [1, " + TIMEOUT_MS_MAX + "]");
        }
        return timeoutMs;
    }

    private static void checkNonNegative(String what, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " " + value + " is negative");
        }
    }

    private static void checkTimeout(int timeoutMs) {
        if (timeoutMs < 1 || timeoutMs > TIMEOUT_MS_MAX) {
            throw new IllegalArgumentException("timeout " + timeoutMs + " ms outside [1, " + TIMEOUT_MS_MAX + "]");
        }
    }

    private static ByteBuffer header(int bytes, int magic, int sender, long correlationId, byte kind) {
        return ByteBuffer.allocate(bytes).putInt(magic).putInt(sender).putLong(correlationId).put(kind);
    }
}
