package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.AppendPlanner;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.CommittedView;
import dev.cairn.broker.partition.Partition;
import dev.cairn.raft.Entry;
import dev.cairn.raft.runtime.GroupStateMachine.LeaderLog;
import dev.cairn.raft.runtime.GroupStateMachine.Proposal;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;
import java.util.function.Supplier;

/**
 * The write-once path on Cairn's engine (docs/write-path.md, "On Cairn's engine"): the leader places each plain
 * append as it enters the Raft log, on the group's loop thread, so the entry carries the placement ({@link
 * Command.AppendAt}, about 60 bytes) as its head and the batch as its tail; every replica writes the tail into the
 * partition's segment as the entry is appended ({@link #place}), and the engine's log keeps the head only. So each
 * payload is written once per replica, and nothing can reorder proposals between placement and append.
 *
 * <p>The planner is the committed state plus the placements in the log after it, rebuilt from the applied state and
 * the leader's in-memory entries whenever it is not current (a new term, or a proposal that did not enter the log).
 * A transactional batch or a marker is decided only as it applies (where its batch goes, whether it goes at all), so
 * it blocks placements until it applies: appends proposed meanwhile go in the old format (the batch in the Raft log,
 * placed as it applies), which the planner replays exactly once the block is applied. A placement behind such
 * entries is not reached in the segment as it is appended: it is logged whole and written as it applies.
 * Loop thread, except {@link #readTail} and {@link #placeAtApply}.
 */
final class EnginePlacements {
    private final TopicPartition tp;
    private final Supplier<Partition> partition;
    private final AppendPlanner planner = new AppendPlanner();
    /** Placements wait until the partition applied this Raft index (an entry decided only as it applies). */
    private long blockedThrough;
    /** Appends placed by this replica as leader, for tests and metrics. */
    private volatile long placements;

    EnginePlacements(TopicPartition tp, Supplier<Partition> partition) {
        this.tp = tp;
        this.partition = partition;
    }

    /** What the proposal {@code head} (+ {@code tail}, an append's batch) enters the log as. */
    Proposal onPropose(LeaderLog log, byte[] head, ByteBuffer tail) {
        Command command;
        try {
            command = tail.hasRemaining() ? CommandCodec.decodeCommand(List.of(ByteBuffer.wrap(head), tail))
                    : CommandCodec.decodeCommand(ByteBuffer.wrap(head));
        } catch (CommandFormatException e) {
            return whole(head, tail);   // the apply answers it
        }
        if (decidedAsApplied(command)) {
            planner.invalidate();
            blockedThrough = Math.max(blockedThrough, log.lastIndex() + 1);
            return whole(head, tail);
        }
        if (!(command instanceof Command.Append append)) {
            return whole(head, tail);
        }
        Partition current = partition.get();
        if (current.appliedRaftIndex() < blockedThrough || !current(log, current)) {
            return whole(head, tail);
        }
        Command placement = planner.plan(append);
        placements++;
        byte[] placed = bytes(CommandCodec.encode(placement));
        return new Proposal(placed, placement instanceof Command.AppendAt ? append.batch() : Entry.NO_TAIL);
    }

    long placements() {
        return placements;
    }

    /** The proposal {@link #onPropose} shaped did not enter the log: the planner no longer knows where it is. */
    void onProposeDropped() {
        planner.invalidate();
    }

    /** Whether the planner is built for the log's term, rebuilding it if it can be: false while it cannot. */
    private boolean current(LeaderLog log, Partition current) {
        long term = log.term();
        if (planner.isCurrent(term)) {
            return true;
        }
        CommittedView view = current.committedView();
        planner.reset(term, view.highWatermark(), view.producers());
        boolean producersMoved = false;
        for (Entry entry : log.entriesAfter(view.appliedRaftIndex())) {
            if (entry.dataLength() == 0) {
                continue;
            }
            Command command = decode(entry);
            if (command instanceof Command.AppendAt at) {
                planner.replay(at);
            } else if (command instanceof Command.Append append && !producersMoved) {
                planner.plan(append);   // decided as it applies, from the state replayed so far: exactly so
            } else if (command == null || command instanceof Command.Append || decidedAsApplied(command)) {
                // Not rebuilt before the partition applies what is in the log now: no scan per proposal meanwhile.
                planner.invalidate();
                blockedThrough = Math.max(blockedThrough, log.lastIndex());
                return false;
            } else if (movesProducers(command)) {
                producersMoved = true;   // an old-format append after it would be decided against state not here
            }
        }
        return true;
    }

    /** Whether where the command's batch goes (and whether it goes at all) is known only as it applies. */
    private static boolean decidedAsApplied(Command command) {
        return command instanceof Command.AppendChecked || command instanceof Command.TxnMarker;
    }

    /** Whether applying the command may change producer state (expiring producers as the log start moves). */
    private static boolean movesProducers(Command command) {
        return command instanceof Command.EnforceRetention || command instanceof Command.DeleteRecords
                || command instanceof Command.Compact;
    }

    /**
     * Writes the batches of entries that carry one as their tail into the segment at their placements (every
     * replica, before the engine logs the heads), where the log reaches them: a placement behind entries that write
     * their batches only as they apply waits for its own apply ({@link #placeAtApply}). Returns the entries written.
     */
    BitSet place(List<Entry> entries) {
        Partition current = partition.get();
        BitSet stored = null;
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            if (entry.tailHeld() || !entry.tail().hasRemaining()) {
                continue;
            }
            if (!(decode(entry) instanceof Command.AppendAt at)) {
                throw new IllegalStateException(tp + ": entry " + entry.raftIndex() + " has a tail but no placement");
            }
            if (current.placements().placeIfReached(at, entry.tail(), (int) entry.term())) {
                stored = stored == null ? new BitSet(entries.size()) : stored;
                stored.set(i);
            }
        }
        return stored;
    }

    /**
     * As a placed entry with its batch in memory applies: writes the batch if the log does not reach it yet (it was
     * not stored as the entry was appended; the engine's log kept it whole). At or past it, the batch is there.
     */
    static void placeAtApply(Partition partition, Entry entry, Command.AppendAt at) {
        if (!entry.tailHeld() && entry.tail().hasRemaining() && partition.logEndOffset() <= at.baseOffset()) {
            partition.placements().place(at, entry.tail(), (int) entry.term());
        }
    }

    /** The batch of a placed entry, read back from the segment; any thread. */
    ByteBuffer readTail(Entry entry) {
        if (!(decode(entry) instanceof Command.AppendAt at)) {
            throw new IllegalStateException(tp + ": entry " + entry.raftIndex() + " holds a tail but no placement");
        }
        return partition.get().placements().readPlaced(at);
    }

    /**
     * The command in an entry's head, or null when it cannot be read: an entry with a tail carries its placement
     * there (only placements get a tail, {@link #onPropose}); any other entry is whole.
     */
    static Command decode(Entry entry) {
        try {
            return CommandCodec.decodeCommand(ByteBuffer.wrap(entry.head()));
        } catch (CommandFormatException e) {
            return null;
        }
    }

    private static Proposal whole(byte[] head, ByteBuffer tail) {
        if (!tail.hasRemaining()) {
            return new Proposal(head, Entry.NO_TAIL);
        }
        byte[] joined = new byte[head.length + tail.remaining()];
        System.arraycopy(head, 0, joined, 0, head.length);
        tail.duplicate().get(joined, head.length, tail.remaining());
        return new Proposal(joined, Entry.NO_TAIL);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0
                && buffer.remaining() == buffer.array().length) {
            return buffer.array();
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
