package dev.cairn.broker.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.broker.partition.Result;
import dev.cairn.raft.Entry;
import dev.cairn.raft.runtime.GroupStateMachine.LeaderLog;
import dev.cairn.raft.runtime.GroupStateMachine.Proposal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's placements on the engine, against a real partition and a log of entries kept here. */
class EnginePlacementsTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path dir;
    private Partition partition;
    private EnginePlacements placements;
    private final List<Entry> log = new ArrayList<>();
    private long applied;
    private final LeaderLog leaderLog = new LeaderLog() {
        @Override
        public long term() {
            return 1;
        }

        @Override
        public long lastIndex() {
            return log.size();
        }

        @Override
        public List<Entry> entriesAfter(long raftIndex) {
            return List.copyOf(log.subList((int) raftIndex, log.size()));
        }
    };

    @BeforeEach
    void open() {
        NioFileIo io = new NioFileIo();
        partition = new Partition(TP.topic(), TP.partition(), Log.open(io, dir.resolve("log"), LogConfig.defaults()),
                new InMemoryOffsetStore(io));
        partition.restoreEmpty();
        placements = new EnginePlacements(TP, () -> partition);
    }

    @AfterEach
    void close() {
        partition.close();
    }

    @Test
    void aPlainAppendEntersTheLogAsItsPlacementWithTheBatchItselfAsTail() {
        ByteBuffer batch = PartitionTestBatches.plain(3);
        Entry entry = propose(new Command.Append(batch, 1000));
        Command.AppendAt at = assertInstanceOf(Command.AppendAt.class, EnginePlacements.decode(entry));
        assertEquals(0, at.baseOffset());
        assertEquals(batch, entry.tail());
        assertTrue(entry.tail().hasArray(), "the request's own buffer, not a copy");

        Entry second = propose(new Command.Append(PartitionTestBatches.plain(2), 1000));
        assertEquals(3, assertInstanceOf(Command.AppendAt.class, EnginePlacements.decode(second)).baseOffset(),
                "placed after the first, which has not applied yet");
        appendAndApplyAll();
        assertEquals(5, partition.highWatermark());
    }

    @Test
    void whileAMarkerIsUnappliedAppendsGoWholeAndArePlacedAgainOnceItApplies() {
        propose(new Command.Append(PartitionTestBatches.plain(2), 1000));
        Entry marker = propose(new Command.TxnMarker(77, (short) 0, false, 0, 1000));
        assertTrue(!marker.hasTail());
        Entry whole = propose(new Command.Append(PartitionTestBatches.plain(4), 1000));
        assertInstanceOf(Command.Append.class, EnginePlacements.decode(whole), "the batch in the Raft log");
        assertTrue(!whole.hasTail());
        appendAndApplyAll();
        long end = partition.highWatermark();

        Entry placed = propose(new Command.Append(PartitionTestBatches.plain(1), 1000));
        assertEquals(end, assertInstanceOf(Command.AppendAt.class, EnginePlacements.decode(placed)).baseOffset());
        appendAndApplyAll();
        assertEquals(end + 1, partition.highWatermark());
    }

    @Test
    void aPlacementBehindAnUnappliedWholeAppendIsLoggedWholeAndWrittenAsItApplies() {
        Entry marker = propose(new Command.TxnMarker(77, (short) 0, false, 0, 1000));
        Entry whole = propose(new Command.Append(PartitionTestBatches.plain(4), 1000));
        appendAndApply(marker);   // applied on the leader, so the next append is placed again...
        Entry placed = propose(new Command.Append(PartitionTestBatches.plain(2), 1000));
        Command.AppendAt at = assertInstanceOf(Command.AppendAt.class, EnginePlacements.decode(placed));
        assertTrue(at.baseOffset() > partition.logEndOffset(), "...after the whole append, not written yet");

        BitSet stored = placements.place(List.of(whole, placed));
        assertNull(stored, "not reached: the engine's log keeps it whole");
        apply(whole);
        apply(placed);
        assertEquals(at.lastOffset() + 1, partition.highWatermark());
        assertEquals(at.lastOffset() + 1, partition.logEndOffset());
    }

    @Test
    void aProposalThatDidNotEnterTheLogIsForgottenByThePlanner() {
        Proposal dropped = placements.onPropose(leaderLog, header(PartitionTestBatches.plain(5)),
                PartitionTestBatches.plain(5));
        assertInstanceOf(Command.AppendAt.class, CommandCodec.decodeCommand(ByteBuffer.wrap(dropped.head())));
        placements.onProposeDropped();
        Entry entry = propose(new Command.Append(PartitionTestBatches.plain(1), 1000));
        assertEquals(0, assertInstanceOf(Command.AppendAt.class, EnginePlacements.decode(entry)).baseOffset());
    }

    /** Proposes as EngineProposals does, and appends the entry to the log as the core would. */
    private Entry propose(Command command) {
        ByteBuffer[] parts = CommandCodec.encodeParts(command);
        Proposal proposal = parts.length == 1 ? placements.onPropose(leaderLog, EngineProposals.encode(command),
                Entry.NO_TAIL) : placements.onPropose(leaderLog, bytes(parts[0]), parts[1]);
        Entry entry = new Entry(1, log.size() + 1, proposal.head(), proposal.tail());
        log.add(entry);
        return entry;
    }

    private static byte[] header(ByteBuffer batch) {
        return bytes(CommandCodec.encodeParts(new Command.Append(batch, 1000))[0]);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private void appendAndApplyAll() {
        for (Entry entry : log.subList((int) applied, log.size())) {
            appendAndApply(entry);
        }
    }

    private void appendAndApply(Entry entry) {
        BitSet stored = placements.place(List.of(entry));
        if (entry.hasTail()) {
            assertSame(Boolean.TRUE, stored != null && stored.get(0), "stored as appended: " + entry);
        }
        apply(entry);
    }

    private void apply(Entry entry) {
        Command command = EnginePlacements.decode(entry);
        if (command instanceof Command.AppendAt at) {
            EnginePlacements.placeAtApply(partition, entry, at);
        }
        Result result = partition.apply(entry.raftIndex(), (int) entry.term(), command);
        assertTrue(!(result instanceof Result.Rejected), entry + ": " + result);
        applied = entry.raftIndex();
    }
}
