package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The committed-offset queries OffsetFetch sends to a partition's leader: their bytes (old brokers' queries, without
 * {@code requireStable}, still read as stable ones) and their answers while a transaction holds an offset (KIP-447;
 * Kafka's OffsetMetadataManager.fetchOffsets: UNSTABLE_OFFSET_COMMIT only when a stable offset is required).
 */
class OffsetQueriesTest {
    private static final long PRODUCER = 4_000L;

    @Test
    void queriesRoundTrip() {
        assertEquals(new OffsetQueries.Query("group-ü", true), OffsetQueries.decode(
                OffsetQueries.encodeCommittedOffsetQuery("group-ü", true)));
        assertEquals(new OffsetQueries.Query("group-ü", false), OffsetQueries.decode(
                OffsetQueries.encodeCommittedOffsetQuery("group-ü", false)));
        assertTrue(OffsetQueries.decode(OffsetQueries.encodeCommittedGroupsQuery()).groupsListing(),
                "the committed-groups query names no group");
        assertThrows(CommandFormatException.class, () -> OffsetQueries.decode(ByteBuffer.wrap(new byte[] {1, 9})));
        assertThrows(CommandFormatException.class, () -> OffsetQueries.decode(ByteBuffer.wrap(new byte[] {1, 1, 0})));
        assertThrows(CommandFormatException.class, () -> OffsetQueries.decode(ByteBuffer.wrap(new byte[] {2, 2})));
    }

    /** A broker before require_stable sent the group id alone and meant a stable read; it is still read so. */
    @Test
    void aQueryWithoutRequireStableIsAStableOne() {
        ByteBuffer current = OffsetQueries.encodeCommittedOffsetQuery("etl", false);
        ByteBuffer old = current.duplicate().limit(current.limit() - 1).slice();
        assertEquals(new OffsetQueries.Query("etl", true), OffsetQueries.decode(old));
    }

    @Test
    void aPendingOffsetIsUnstableOnlyWhenAStableOneIsRequired() {
        SimulatedFileIo io = new SimulatedFileIo(1);
        Partition partition = new Partition("in", 0, Log.open(io, Path.of("/data/in-0"), LogConfig.defaults()),
                new InMemoryOffsetStore(io));
        assertEquals(Result.OffsetFetched.NONE, OffsetQueries.committedOffset(partition, "etl", true));
        partition.apply(1, 1, new Command.CommitOffset("etl", 5, 1, "before", 1_000L));
        partition.apply(2, 1, new Command.TxnCommitOffset(PRODUCER, (short) 0, "etl", 42, 1, "m", 2_000L));

        assertEquals(new Result.OffsetFetched(5, "before", 1), OffsetQueries.committedOffset(partition, "etl", false),
                "the last committed offset, the pending one ignored");
        assertEquals(ErrorCode.UNSTABLE_OFFSET_COMMIT, assertInstanceOf(Result.Rejected.class,
                OffsetQueries.committedOffset(partition, "etl", true)).error());
        assertEquals(new Result.OffsetFetched(-1, null, -1), OffsetQueries.committedOffset(partition, "other", true),
                "another group's offsets are not held");

        partition.apply(3, 1, new Command.TxnEndOffsets(PRODUCER, (short) 0, true));
        assertEquals(new Result.OffsetFetched(42, "m", 1), OffsetQueries.committedOffset(partition, "etl", true));
    }
}
