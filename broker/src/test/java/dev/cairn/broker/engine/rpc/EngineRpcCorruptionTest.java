package dev.cairn.broker.engine.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.protocol.ErrorCode;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Random corruptions of valid leader RPC frames, fed to {@link EngineRpc#onFrame} as a peer's connection would: a
 * malformed one is dropped (counted, never handed to the leader side), nothing is thrown out of onFrame, and no
 * length read from the frame is trusted for an allocation (what one frame costs stays within a small multiple of
 * its own bytes). {@code -Drpc.seed=} replays a failure's seed.
 */
class EngineRpcCorruptionTest {
    private static final int CORRUPTIONS = 2_000;
    /** Bytes onFrame may allocate beyond twice the frame: the decoded objects, an exception, a suppressed warning. */
    private static final long ALLOCATION_SLACK_BYTES = 64 * 1024;

    @Test
    void corruptedFramesAreDroppedNeverThrownAndAllocateNoMoreThanTheirBytes() {
        long seed = Long.getLong("rpc.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count a thread's allocations");
        AnsweringLeader leader = new AnsweringLeader();
        try (EngineRpc rpc = new EngineRpc(1, (node, frame) -> true, leader, 1024 * 1024)) {
            List<ByteBuffer> valid = validFrames();
            // Warm up: classes loaded, the first (logged) warning out of the way.
            valid.forEach(frame -> rpc.onFrame(frame.duplicate()));
            rpc.onFrame(ByteBuffer.allocate(EngineRpcCodec.HEADER_BYTES));

            int malformed = 0;
            for (int i = 0; i < CORRUPTIONS; i++) {
                ByteBuffer frame = corrupt(valid.get(random.nextInt(valid.size())), random);
                String context = "seed " + seed + ", corruption " + i + " (replay with -Drpc.seed=" + seed + ")";
                boolean refused = refusedByCodec(frame, context);
                long droppedBefore = rpc.framesDropped();
                int callsBefore = leader.calls.get();
                long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
                try {
                    rpc.onFrame(frame);
                } catch (RuntimeException e) {
                    fail("onFrame threw: " + context, e);
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
                assertTrue(allocated <= 2L * frame.capacity() + ALLOCATION_SLACK_BYTES, "a frame of "
                        + frame.remaining() + " bytes allocated " + allocated + " bytes: " + context);
                if (refused) {
                    malformed++;
                    assertEquals(droppedBefore + 1, rpc.framesDropped(), "dropped and counted: " + context);
                    assertEquals(callsBefore, leader.calls.get(), "never handed to the leader side: " + context);
                }
            }
            assertTrue(malformed > CORRUPTIONS / 4, "only " + malformed + " corruptions were malformed (seed " + seed
                    + "): the test exercises too little");
            assertEquals(0, rpc.outstandingCalls());
        }
    }

    /** Whether the codec refuses the frame; any exception but RpcFormatException fails the test. */
    private static boolean refusedByCodec(ByteBuffer frame, String context) {
        try {
            EngineRpcCodec.decode(frame);
            return false;
        } catch (RpcFormatException e) {
            return true;
        } catch (RuntimeException e) {
            fail("the codec threw " + e + " rather than refusing: " + context, e);
            return true;
        }
    }

    private static List<ByteBuffer> validFrames() {
        byte[] batch = new byte[64];
        new SplittableRandom(7).nextBytes(batch);
        return List.of(
                EngineRpcCodec.encodeRequest(2, 11, new RpcRequest.Submit(3, 5_000,
                        new Command.Append(ByteBuffer.wrap(batch), 99L))),
                EngineRpcCodec.encodeRequest(2, 12, new RpcRequest.Submit(3, 5_000,
                        new Command.CommitOffset("group", 42, 3, "metadata", 99L))),
                EngineRpcCodec.encodeRequest(2, 13, new RpcRequest.Submit(3, 5_000,
                        new Command.TxnMarker(7L, (short) 2, true, 5, 99L))),
                EngineRpcCodec.encodeRequest(2, 14, new RpcRequest.Submit(3, 5_000,
                        new Command.TxnAddPartitions("txn", 7L, (short) 1,
                                List.of(new TxnPartition("topic", 0), new TxnPartition("topic", 1)), false, 99L))),
                EngineRpcCodec.encodeRequest(2, 15, new RpcRequest.CommittedOffset(3, "group-ü", true)),
                EngineRpcCodec.encodeRequest(2, 16, new RpcRequest.CommittedGroups(3)),
                EngineRpcCodec.encodeRequest(2, 17, new RpcRequest.TransferLeadership(3, 1, 5_000)),
                EngineRpcCodec.encodeResponse(2, 18, new RpcResponse.Answered(
                        new Result.Appended(10, 12, -1, 0, false))),
                EngineRpcCodec.encodeResponse(2, 19, new RpcResponse.Answered(
                        new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "not the leader"))),
                EngineRpcCodec.encodeResponse(2, 20, new RpcResponse.Answered(
                        new Result.GroupsListed(List.of("a", "bb", "ccc", "dddd")))),
                EngineRpcCodec.encodeResponse(2, 21, new RpcResponse.Answered(
                        new Result.TxnAnswer(ErrorCode.NONE, 7L, (short) 1, "ok"))),
                EngineRpcCodec.encodeResponse(2, 22, new RpcResponse.Transferred(true)));
    }

    /** One random corruption: bytes changed, the frame cut short or extended, or an int set to an extreme. */
    private static ByteBuffer corrupt(ByteBuffer valid, SplittableRandom random) {
        byte[] bytes = new byte[valid.remaining()];
        valid.duplicate().get(bytes);
        switch (random.nextInt(4)) {
            case 0:
                for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                }
                return ByteBuffer.wrap(bytes);
            case 1:
                return ByteBuffer.wrap(bytes, 0, random.nextInt(bytes.length)).slice();
            case 2:
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(16));
                for (int i = bytes.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                return ByteBuffer.wrap(longer);
            default:
                int[] extremes = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, 0, random.nextInt()};
                return ByteBuffer.wrap(bytes).putInt(random.nextInt(bytes.length - 3),
                        extremes[random.nextInt(extremes.length)]);
        }
    }

    /** Answers every request at once, counting them. */
    private static final class AnsweringLeader implements LeaderSide {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CompletableFuture<Result> submit(int group, Command command, long timeoutMs) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(Result.OFFSET_COMMITTED);
        }

        @Override
        public CompletableFuture<Result> committedOffset(int group, String groupId, boolean requireStable) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(Result.OffsetFetched.NONE);
        }

        @Override
        public CompletableFuture<Result> committedGroups(int group) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(new Result.GroupsListed(List.of()));
        }

        @Override
        public CompletableFuture<java.nio.ByteBuffer> committedBatches(int group, long fromOffset, int maxBytes) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(java.nio.ByteBuffer.allocate(0));
        }

        @Override
        public CompletableFuture<Boolean> transferLeadership(int group, int toNode, long timeoutMs) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(true);
        }
    }
}
