package dev.cairn.broker.engine.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leader RPC's frame layout (EngineRpcCodec's Javadoc): every kind round-trips, anything else is refused. */
class EngineRpcCodecTest {
    private static final int ENGINE_MAGIC = 0xCA1F_0001;

    @Test
    void everyRequestKindRoundTrips() throws RpcFormatException {
        byte[] batch = {1, 2, 3, 4, 5, 6, 7};
        ByteBuffer frame = EngineRpcCodec.encodeRequest(3, Long.MAX_VALUE,
                new RpcRequest.Submit(42, 30_000, new Command.Append(ByteBuffer.wrap(batch), 1234L)));
        RpcFrame.Request request = assertInstanceOf(RpcFrame.Request.class, EngineRpcCodec.decode(frame));
        assertEquals(3, request.sender());
        assertEquals(Long.MAX_VALUE, request.correlationId());
        RpcRequest.Submit submit = assertInstanceOf(RpcRequest.Submit.class, request.request());
        assertEquals(42, submit.group());
        assertEquals(30_000, submit.timeoutMs());
        Command.Append append = assertInstanceOf(Command.Append.class, submit.command());
        assertEquals(ByteBuffer.wrap(batch), append.batch());
        assertEquals(1234L, append.appendTimeMs());
        assertEquals(0, frame.position(), "decoding leaves the frame where it was");

        for (RpcRequest sent : List.<RpcRequest>of(
                new RpcRequest.Submit(0, 1, new Command.CommitOffset("group-ü", 42, 3, "meta", 99L)),
                new RpcRequest.Submit(Integer.MAX_VALUE, EngineRpcCodec.TIMEOUT_MS_MAX,
                        new Command.TxnMarker(7L, (short) 2, true, 5, 1_700_000_000_000L)),
                new RpcRequest.CommittedOffset(9, "group-ü", true),
                new RpcRequest.CommittedOffset(9, "", false),
                new RpcRequest.CommittedGroups(11),
                new RpcRequest.TransferLeadership(12, 2, 5_000),
                new RpcRequest.CommittedBatches(13, 0, 1),
                new RpcRequest.CommittedBatches(13, Long.MAX_VALUE, EngineRpcCodec.BATCHES_BYTES_MAX))) {
            RpcFrame decoded = EngineRpcCodec.decode(EngineRpcCodec.encodeRequest(1, -5L, sent));
            assertEquals(new RpcFrame.Request(1, -5L, sent), decoded);
        }
    }

    @Test
    void everyResponseKindRoundTrips() throws RpcFormatException {
        for (RpcResponse sent : List.<RpcResponse>of(
                new RpcResponse.Answered(new Result.Appended(10, 12, -1, 0, false)),
                new RpcResponse.Answered(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "not here")),
                new RpcResponse.Answered(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, null)),
                new RpcResponse.Answered(new Result.OffsetFetched(17, "meta", 4)),
                new RpcResponse.Answered(Result.OffsetFetched.NONE),
                new RpcResponse.Answered(new Result.GroupsListed(List.of("a", "b-ü"))),
                new RpcResponse.Answered(new Result.TxnAnswer(ErrorCode.NONE, 5L, (short) 1, "ok")),
                new RpcResponse.Answered(Result.OFFSET_COMMITTED),
                new RpcResponse.Transferred(true),
                new RpcResponse.Transferred(false),
                new RpcResponse.Batches(ByteBuffer.wrap(new byte[] {1, 2, 3})),
                new RpcResponse.Batches(ByteBuffer.allocate(0)))) {
            RpcFrame decoded = EngineRpcCodec.decode(EngineRpcCodec.encodeResponse(2, 77L, sent));
            assertEquals(new RpcFrame.Response(2, 77L, sent), decoded);
        }
    }

    @Test
    void isRpcFramePeeksAtTheMagicOnly() {
        ByteBuffer request = EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.CommittedGroups(1));
        ByteBuffer response = EngineRpcCodec.encodeResponse(1, 1, new RpcResponse.Transferred(true));
        assertTrue(EngineRpcCodec.isRpcFrame(request));
        assertTrue(EngineRpcCodec.isRpcFrame(response));
        assertEquals(0, request.position());
        assertFalse(EngineRpcCodec.isRpcFrame(ByteBuffer.allocate(12).putInt(0, ENGINE_MAGIC)),
                "the engine's frames stay the engine's");
        assertFalse(EngineRpcCodec.isRpcFrame(ByteBuffer.allocate(3)));
        ByteBuffer offset = ByteBuffer.allocate(8).putInt(4, EngineRpcCodec.REQUEST_MAGIC).position(4);
        assertTrue(EngineRpcCodec.isRpcFrame(offset), "read at the buffer's position, not at 0");
    }

    @Test
    void malformedFramesAreRefused() {
        ByteBuffer transfer = EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.TransferLeadership(1, 2, 100));
        ByteBuffer offsetRead = EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.CommittedOffset(1, "g", true));
        List<ByteBuffer> malformed = List.of(
                ByteBuffer.allocate(EngineRpcCodec.HEADER_BYTES - 1).putInt(0, EngineRpcCodec.REQUEST_MAGIC),
                withInt(copy(transfer), 0, ENGINE_MAGIC),
                withByte(copy(transfer), 16, (byte) 9),
                withByte(EngineRpcCodec.encodeResponse(1, 1, new RpcResponse.Transferred(true)), 16, (byte) 9),
                withLong(EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.CommittedBatches(1, 5, 10)), 21, -1),
                withInt(EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.CommittedBatches(1, 5, 10)), 29, 0),
                withInt(EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.CommittedBatches(1, 5, 10)), 29,
                        EngineRpcCodec.BATCHES_BYTES_MAX + 1),
                withInt(copy(transfer), 4, -1),
                withInt(copy(transfer), 17, -1),
                withInt(copy(transfer), 21, -2),
                withInt(copy(transfer), 25, 0),
                withInt(copy(transfer), 25, EngineRpcCodec.TIMEOUT_MS_MAX + 1),
                extended(transfer, 1),
                truncated(transfer, 1),
                withInt(copy(offsetRead), 21, Integer.MAX_VALUE),
                withInt(copy(offsetRead), 21, EngineRpcCodec.GROUP_ID_BYTES_MAX + 1),
                withInt(copy(offsetRead), 21, -1),
                withByte(copy(offsetRead), offsetRead.limit() - 1, (byte) 2),
                EngineRpcCodec.encodeRequest(1, 1, new RpcRequest.Submit(1, 1, new Command.DeleteRecords(5)))
                        .limit(EngineRpcCodec.HEADER_BYTES + 8 + 1),
                withByte(EngineRpcCodec.encodeResponse(1, 1, new RpcResponse.Answered(Result.OFFSET_COMMITTED)),
                        EngineRpcCodec.HEADER_BYTES, (byte) 99));
        for (ByteBuffer frame : malformed) {
            assertThrows(RpcFormatException.class, () -> EngineRpcCodec.decode(frame), () -> "accepted " + frame);
        }
    }

    @Test
    void encodingRefusesWhatTheFormatCannotCarry() {
        assertThrows(IllegalArgumentException.class, () -> EngineRpcCodec.encodeRequest(1, 1,
                new RpcRequest.CommittedOffset(1, null, false)));
        assertThrows(IllegalArgumentException.class, () -> EngineRpcCodec.encodeRequest(1, 1,
                new RpcRequest.CommittedOffset(1, "x".repeat(EngineRpcCodec.GROUP_ID_BYTES_MAX + 1), false)));
        assertThrows(IllegalArgumentException.class, () -> EngineRpcCodec.encodeRequest(1, 1,
                new RpcRequest.TransferLeadership(1, 2, 0)));
        assertThrows(IllegalArgumentException.class, () -> EngineRpcCodec.encodeRequest(-1, 1,
                new RpcRequest.CommittedGroups(1)));
        assertThrows(IllegalArgumentException.class, () -> EngineRpcCodec.encodeRequest(1, 1,
                new RpcRequest.CommittedGroups(-1)));
    }

    private static ByteBuffer copy(ByteBuffer frame) {
        return ByteBuffer.allocate(frame.remaining()).put(frame.duplicate()).flip();
    }

    private static ByteBuffer withLong(ByteBuffer frame, int at, long value) {
        frame.putLong(at, value);
        return frame;
    }

    private static ByteBuffer withInt(ByteBuffer frame, int at, int value) {
        return frame.putInt(at, value);
    }

    private static ByteBuffer withByte(ByteBuffer frame, int at, byte value) {
        return frame.put(at, value);
    }

    private static ByteBuffer extended(ByteBuffer frame, int bytes) {
        return ByteBuffer.allocate(frame.remaining() + bytes).put(frame.duplicate()).position(0);
    }

    private static ByteBuffer truncated(ByteBuffer frame, int bytes) {
        return copy(frame).limit(frame.remaining() - bytes);
    }
}
