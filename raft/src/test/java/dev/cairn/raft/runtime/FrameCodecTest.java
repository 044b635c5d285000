package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    private static List<FrameCodec.GroupMessage> everyKind() {
        // The last carries its payload as a tail (as a broker's append does): it arrives in one array, equal to it.
        List<Entry> entries = List.of(new Entry(3, 11, new byte[0]), new Entry(3, 12, new byte[] {1, 2, 3}),
                new Entry(3, 13, new byte[] {4}, ByteBuffer.wrap(new byte[] {5, 6})));
        return List.of(
                new FrameCodec.GroupMessage(0, new Message.VoteRequest(2, 1, 4, 10, 3, true, false)),
                new FrameCodec.GroupMessage(0, new Message.VoteRequest(2, 1, 4, 10, 3, false, true)),
                new FrameCodec.GroupMessage(4, new Message.TimeoutNow(2, 1, 4)),
                new FrameCodec.GroupMessage(7, new Message.VoteResponse(2, 1, 4, true, false)),
                new FrameCodec.GroupMessage(-5, new Message.AppendRequest(2, 1, 3, 10, 3, entries, 9)),
                new FrameCodec.GroupMessage(1 << 30, new Message.AppendResponse(2, 1, 3, false, 0, 8)),
                new FrameCodec.GroupMessage(3, new Message.Heartbeat(2, 1, 3, 12, true)),
                new FrameCodec.GroupMessage(3, new Message.HeartbeatResponse(2, 1, 3, 12)),
                new FrameCodec.GroupMessage(9, new Message.InstallSnapshot(2, 1, 5, 100, 4, List.of(1, 2, 3))));
    }

    @Test
    void anEntryArrivesWithItsHeadAndTailApart() {
        Entry tailed = new Entry(3, 11, new byte[] {1, 2}, ByteBuffer.wrap(new byte[] {3, 4, 5}));
        List<FrameCodec.GroupMessage> sent = List.of(new FrameCodec.GroupMessage(1,
                new Message.AppendRequest(2, 1, 3, 10, 3, List.of(tailed), 9)));
        Message.AppendRequest received = (Message.AppendRequest) FrameCodec.decode(FrameCodec.encode(2, sent).get(0))
                .messages().get(0).message();
        Entry entry = received.entries().get(0);
        assertEquals(2, entry.head().length, "the head as the leader made it");
        assertEquals(3, entry.tail().remaining(), "the tail as the leader made it");
        assertEquals(tailed, entry);
    }

    @Test
    void anEntryWhoseTailIsHeldIsNeverSent() {
        List<FrameCodec.GroupMessage> sent = List.of(new FrameCodec.GroupMessage(1, new Message.AppendRequest(2, 1,
                3, 10, 3, List.of(Entry.withHeldTail(3, 11, new byte[] {1}, 4)), 9)));
        assertThrows(IllegalStateException.class, () -> FrameCodec.encode(2, sent));
    }

    @Test
    void everyMessageKindRoundTrips() {
        List<ByteBuffer> frames = FrameCodec.encode(2, everyKind());
        assertEquals(1, frames.size());
        FrameCodec.Frame frame = FrameCodec.decode(frames.get(0));
        assertEquals(2, frame.sender());
        assertEquals(everyKind(), frame.messages());
    }

    @Test
    void aPingIsAFrameWithoutMessages() {
        FrameCodec.Frame frame = FrameCodec.decode(FrameCodec.ping(4));
        assertEquals(new FrameCodec.Frame(4, List.of()), frame);
    }

    @Test
    void manyMessagesAreCutIntoFramesOfAboutTheTarget() {
        List<FrameCodec.GroupMessage> messages = new ArrayList<>();
        for (int group = 0; group < 400; group++) {
            messages.add(new FrameCodec.GroupMessage(group, new Message.AppendRequest(2, 1, 1, 0, 0,
                    List.of(new Entry(1, 1, new byte[8 * 1024])), 0)));
        }
        List<ByteBuffer> frames = FrameCodec.encode(2, messages);
        assertTrue(frames.size() >= 3, "3.2 MiB in frames of about 1 MiB: " + frames.size());
        List<FrameCodec.GroupMessage> decoded = new ArrayList<>();
        for (ByteBuffer frame : frames) {
            assertTrue(frame.remaining() <= FrameCodec.FRAME_BYTES_TARGET);
            decoded.addAll(FrameCodec.decode(frame).messages());
        }
        assertEquals(messages, decoded);
    }

    /** A snapshot's chunks carry the configuration at its index (empty when the leader does not know it). */
    @Test
    void snapshotChunksCarryTheConfigurationAtTheirIndex() {
        List<FrameCodec.GroupMessage> sent = List.of(
                new FrameCodec.GroupMessage(5, new SnapshotTraffic.Chunk(2, 1, 6, 40, 5, List.of(2, 5, 9), 0, false,
                        new byte[] {1, 2, 3})),
                new FrameCodec.GroupMessage(5, new SnapshotTraffic.Chunk(2, 1, 6, 40, 5, List.of(), 3, true,
                        new byte[0])),
                new FrameCodec.GroupMessage(5, new SnapshotTraffic.Ack(2, 1, 6, 40, 3)));
        FrameCodec.Frame frame = FrameCodec.decode(FrameCodec.encode(2, sent).get(0));
        assertEquals(sent, frame.messages());
    }

    @Test
    void malformedFramesAreRefusedWithAReason() {
        ByteBuffer good = FrameCodec.encode(2, everyKind()).get(0);
        assertRefused(ByteBuffer.allocate(12).putInt(0xDEAD).putInt(2).putInt(0).flip(), "magic");
        assertRefused(good.duplicate().limit(good.limit() - 1), "cut short");
        assertRefused(ByteBuffer.allocate(16).putInt(FrameCodec.MAGIC).putInt(2).putInt(Integer.MAX_VALUE)
                .putInt(0).flip(), "count");
        ByteBuffer trailing = ByteBuffer.allocate(good.remaining() + 1).put(good.duplicate()).put((byte) 0).flip();
        assertRefused(trailing, "after the last message");
        ByteBuffer wrongSender = good.duplicate();
        wrongSender = ByteBuffer.allocate(wrongSender.remaining()).put(wrongSender).flip();
        wrongSender.putInt(4, 3);
        assertRefused(wrongSender, "in a frame of 3");
        assertRefused(ByteBuffer.allocate(FrameCodec.FRAME_BYTES_MAX + 1), "at most");
    }

    @Test
    void randomCorruptionNeverThrowsAnythingElse() {
        ByteBuffer good = FrameCodec.encode(2, everyKind()).get(0);
        SplittableRandom random = new SplittableRandom(17);
        int refused = 0;
        for (int run = 0; run < 20_000; run++) {
            byte[] bytes = new byte[good.remaining()];
            good.duplicate().get(bytes);
            int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            int length = random.nextInt(4) == 0 ? random.nextInt(bytes.length + 1) : bytes.length;
            try {
                FrameCodec.decode(ByteBuffer.wrap(bytes, 0, length));
            } catch (FrameFormatException e) {
                refused++;
            }
        }
        assertTrue(refused > 1_000, "most corruptions are caught: " + refused);
    }

    private static void assertRefused(ByteBuffer frame, String reason) {
        FrameFormatException refused = assertThrows(FrameFormatException.class, () -> FrameCodec.decode(frame));
        assertTrue(refused.getMessage().contains(reason), refused.getMessage());
    }
}
