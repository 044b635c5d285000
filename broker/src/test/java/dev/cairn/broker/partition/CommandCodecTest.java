package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CommandCodecTest {

    @Test
    void commandsRoundTrip() {
        ByteBuffer batch = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
        Command.Append append = assertInstanceOf(Command.Append.class,
                CommandCodec.decodeCommand(CommandCodec.encode(new Command.Append(batch, 1234L))));
        assertEquals(1234L, append.appendTimeMs());
        assertEquals(batch, append.batch());
        for (Command command : List.<Command>of(
                new Command.CommitOffset("group-ü", 42, 3, "meta", 99L),
                new Command.CommitOffset("g", -1, -1, null, 0L),
                new Command.EnforceRetention(777L), new Command.DeleteOffset("group-ü"),
                new Command.DeleteRecords(-1), new Command.DeleteRecords(1L << 40),
                new Command.Reconfigure(java.util.Map.of()), new Command.Compact(7, 4096, 1_700_000_000_000L),
                new Command.Reconfigure(java.util.Map.of("segment.bytes", "4096", "cleanup.policy", "compact")))) {
            assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encode(command)));
        }
    }

    /** Issue 20: transaction markers, and placements that say what they are to a transaction. */
    @Test
    void transactionPlacementsAndMarkersRoundTrip() {
        Command.AppendAt plain = new Command.AppendAt(5, 6, 70, 8, 2, 9L, (short) 1, 0, 2, 11L);
        for (Command command : List.<Command>of(plain,
                new Command.AppendAt(5, 6, 70, 8, 2, 9L, (short) 1, 0, 2, 11L, TxnRole.DATA),
                new Command.AppendAt(7, 6, 80, 8, 0, 9L, (short) 1, -1, -1, 11L, TxnRole.COMMIT),
                new Command.AppendAt(7, 6, 80, 8, 0, 9L, (short) 1, -1, -1, 11L, TxnRole.ABORT),
                new Command.TxnMarker(9L, (short) 4, true, 12, 1_700_000_000_000L),
                new Command.TxnMarker(9L, (short) 4, false, -1, 0L))) {
            assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encode(command)));
            assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encodeParts(command)[0]));
        }
        assertEquals(PlacementCodec.APPEND_AT, PlacementCodec.encode(plain).get(1),
                "a placement outside transactions keeps the format older brokers wrote and read");
        ByteBuffer unknownRole = PlacementCodec.encode(new Command.AppendAt(7, 6, 80, 8, 0, 9L, (short) 1, -1, -1,
                11L, TxnRole.ABORT));
        unknownRole.put(unknownRole.limit() - 1, (byte) 9);
        assertThrows(CommandFormatException.class, () -> CommandCodec.decodeCommand(unknownRole));
    }

    /** Issue 17: an Append travels as two parts (header, batch) and decodes from them without a copy. */
    @Test
    void appendPartsDecodeToASliceOfTheBatch() {
        ByteBuffer batch = ByteBuffer.wrap(new byte[] {9, 8, 7, 6});
        ByteBuffer[] parts = CommandCodec.encodeParts(new Command.Append(batch, 55L));
        assertEquals(2, parts.length);
        Command.Append append = assertInstanceOf(Command.Append.class, CommandCodec.decodeCommand(List.of(parts)));
        assertEquals(55L, append.appendTimeMs());
        assertEquals(batch, append.batch());
        assertEquals(true, append.batch().hasArray() && append.batch().array() == batch.array(), "not copied");
        // Any other split (a follower's entry comes as one buffer; a rope may split anywhere) decodes the same.
        ByteBuffer whole = CommandCodec.encode(new Command.Append(batch, 55L));
        List<ByteBuffer> oddSplit = List.of(whole.duplicate().limit(3), whole.duplicate().position(3));
        assertEquals(append, CommandCodec.decodeCommand(oddSplit));
        assertEquals(append, CommandCodec.decodeCommand(List.of(whole)));
        Command commit = new Command.CommitOffset("g", 1, 2, "m", 3L);
        assertEquals(commit, CommandCodec.decodeCommand(List.of(CommandCodec.encodeParts(commit))));
    }

    @Test
    void resultsRoundTrip() {
        for (Result result : List.of(new Result.Appended(10, 14, -1, 0, false),
                new Result.Appended(10, 14, 5, 3, true), new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, "bad crc"),
                Result.OFFSET_COMMITTED, new Result.Retained(100, 2), new Result.OffsetFetched(42, "m", 7),
                new Result.OffsetFetched(-1, null, -1), new Result.OffsetDeleted(true),
                new Result.OffsetDeleted(false), Result.RECONFIGURED,
                new Result.Compacted(3, 4096, 10_000, 2_000, 77, true), new Result.GroupsListed(List.of()),
                new Result.GroupsListed(List.of("billing", "group-ü")))) {
            assertEquals(result, CommandCodec.decodeResult(CommandCodec.encode(result)));
        }
    }

    /** A Reconfigure entry claiming more configs than a topic may hold is refused before anything is allocated. */
    @Test
    void reconfigureCountIsBounded() {
        ByteBuffer claim = ByteBuffer.allocate(6).put((byte) 1).put((byte) 6).putInt(Integer.MAX_VALUE).flip();
        assertThrows(CommandFormatException.class, () -> CommandCodec.decodeCommand(claim));
        java.util.Map<String, String> many = new java.util.HashMap<>();
        for (int i = 0; i <= dev.cairn.broker.config.Limits.TOPIC_CONFIGS_MAX; i++) {
            many.put("c" + i, "v");
        }
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.encode(new Command.Reconfigure(many)));
    }

    @Test
    void groupListingsAreBounded() {
        // A listing claiming more names than its bytes can hold is refused before anything is allocated.
        ByteBuffer claim = ByteBuffer.allocate(6).put((byte) 1).put((byte) 10).putInt(Integer.MAX_VALUE).flip();
        assertThrows(CommandFormatException.class, () -> CommandCodec.decodeResult(claim));
    }

    /** An expiry entry names a bounded number of transactional ids; a claim past it or past its bytes is refused. */
    @Test
    void transactionalIdExpiriesRoundTripAndAreBounded() {
        Command.TxnExpireIds expire = new Command.TxnExpireIds(List.of("a", "id-ü"), 604_800_000L, 1_700_000_000_000L);
        assertEquals(expire, CommandCodec.decodeCommand(CommandCodec.encode(expire)));
        for (int claimed : new int[] {CoordinatorTransactions.EXPIRED_IDS_PER_COMMAND_MAX + 1, 3, -1}) {
            ByteBuffer claim = ByteBuffer.allocate(2 + 8 + 8 + 4 + 4).put((byte) 1).put((byte) 21).putLong(1)
                    .putLong(2).putInt(claimed).putInt(0).flip();
            assertThrows(CommandFormatException.class, () -> CommandCodec.decodeCommand(claim), "count " + claimed);
        }
    }

    @Test
    void malformedBytesRaiseTheFormatExceptionOnly() {
        ByteBuffer valid = CommandCodec.encode(new Command.CommitOffset("group", 42, 3, "meta", 99L));
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            byte[] bytes = new byte[valid.remaining()];
            valid.duplicate().get(bytes);
            int length = random.nextInt(bytes.length + 1);
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
            try {
                CommandCodec.decodeCommand(ByteBuffer.wrap(bytes, 0, length));
            } catch (CommandFormatException expected) {
                // The only exception allowed out of a decode.
            }
        }
        assertThrows(CommandFormatException.class, () -> CommandCodec.decodeCommand(ByteBuffer.allocate(0)));
        assertThrows(CommandFormatException.class, () -> CommandCodec.decodeCommand(ByteBuffer.wrap(new byte[] {9})));
    }
}
