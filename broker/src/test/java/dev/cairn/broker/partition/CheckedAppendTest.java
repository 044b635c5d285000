package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command.AppendChecked;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * KIP-890 where offsets are decided as entries apply (the Cairn Raft engine): the leader stamps a transactional
 * batch with the term its verification holds in ({@link TransactionVerifications#admitInTerm}), a marker voids the
 * registrations of its producer, and applying places a batch that would open a transaction only when its stamp is
 * its own entry's term. Every replica decides alike.
 */
class CheckedAppendTest {
    private static final long PRODUCER = 77;
    private static final short EPOCH = 0;
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private long raftIndex;

    private Partition open() {
        return new Partition("checked", 0, Log.open(io, Path.of("/data/checked-0"), LogConfig.defaults()),
                new InMemoryOffsetStore(io));
    }

    private static AppendChecked checked(int records, int baseSequence, long verifiedInTerm) {
        ByteBuffer batch = PartitionTransactionsTest.transactionalBatch(records, PRODUCER, EPOCH, baseSequence);
        return new AppendChecked(new Command.Append(batch, 5_000L), verifiedInTerm);
    }

    /** Applies {@code command} in an entry of {@code term}, through the codec as the Raft log carries it. */
    private Result apply(Partition partition, int term, Command command) {
        Command decoded = CommandCodec.decodeCommand(List.of(CommandCodec.encodeParts(command)));
        return partition.apply(++raftIndex, term, decoded);
    }

    private static ErrorCode refusal(Result result) {
        return assertInstanceOf(Result.Rejected.class, result).error();
    }

    @Test
    void aBatchThatWouldOpenATransactionAppliesOnlyWhenVerifiedInItsOwnTerm() {
        Partition partition = open();
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, refusal(apply(partition, 3, checked(2, 0, -1))),
                "unverified: retriable, verified anew when retried");
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, refusal(apply(partition, 3, checked(2, 0, 2))),
                "verified under an earlier leader term: a marker of another leader may lie between");
        assertEquals(0, partition.highWatermark());

        Result.Appended opened = assertInstanceOf(Result.Appended.class, apply(partition, 3, checked(2, 0, 3)));
        assertEquals(0, opened.baseOffset());
        assertInstanceOf(Result.Appended.class, apply(partition, 4, checked(1, 2, -1)),
                "the open transaction's next batches need no verification");

        apply(partition, 4, new Command.TxnMarker(PRODUCER, EPOCH, false, 0, 6_000L));
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, refusal(apply(partition, 4, checked(1, 3, -1))),
                "after the marker, the next transaction is verified again");
        assertEquals(4, partition.highWatermark(), "three records and the marker");
    }

    @Test
    void aPlainAppendOfATransactionalBatchIsNotChecked() {
        // Entries written before checked appends existed replay as they applied then.
        Result result = apply(open(), 1, new Command.Append(
                PartitionTransactionsTest.transactionalBatch(1, PRODUCER, EPOCH, 0), 5_000L));
        assertInstanceOf(Result.Appended.class, result);
    }

    @Test
    void aRegistrationHoldsInItsTermUntilAMarkerOfItsProducer() {
        TransactionVerifications verifications = new TransactionVerifications();
        verifications.register(PRODUCER, EPOCH, 0);
        assertEquals(-1, verifications.admitInTerm(5, PRODUCER, EPOCH, 0),
                "made before this replica proposed in term 5: it may be older than the term");
        verifications.register(PRODUCER, EPOCH, 0);
        assertEquals(5, verifications.admitInTerm(5, PRODUCER, EPOCH, 0));
        assertEquals(-1, verifications.admitInTerm(5, PRODUCER, EPOCH, 0), "used up");

        verifications.register(PRODUCER, EPOCH, 4);
        verifications.cancelInTerm(5, PRODUCER);
        assertEquals(-1, verifications.admitInTerm(5, PRODUCER, EPOCH, 4), "a marker was proposed since");

        verifications.register(PRODUCER, EPOCH, 8);
        verifications.register(PRODUCER + 1, EPOCH, 0);
        verifications.cancelInTerm(5, PRODUCER + 1);
        assertEquals(5, verifications.admitInTerm(5, PRODUCER, EPOCH, 8), "another producer's marker");

        verifications.register(PRODUCER, EPOCH, 9);
        assertEquals(-1, verifications.admitInTerm(7, PRODUCER, EPOCH, 9),
                "made in another term: another leader's markers never passed here");
        verifications.register(PRODUCER, EPOCH, 10);
        assertEquals(7, verifications.admitInTerm(7, PRODUCER, EPOCH, 10));
    }

    @Test
    void checkedAppendsRoundTripWithoutCopyingTheBatch() {
        AppendChecked command = checked(1, 0, 9);
        ByteBuffer[] parts = CommandCodec.encodeParts(command);
        assertEquals(2, parts.length);
        AppendChecked decoded = assertInstanceOf(AppendChecked.class, CommandCodec.decodeCommand(List.of(parts)));
        assertEquals(command, decoded);
        assertSame(command.append().batch().array(), decoded.append().batch().array(), "the batch itself, no copy");
        assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encode(command)));
    }
}
