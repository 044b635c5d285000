package dev.cairn.raft.runtime;

import dev.cairn.raft.Message;
import dev.cairn.raft.Role;
import dev.cairn.raft.SnapshotMeta;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/**
 * One loop's snapshot shipping (docs/multi-raft.md): as leader it turns each {@code InstallSnapshot} its groups' cores
 * emit into a stream of {@link SnapshotTraffic.Chunk}s read from the state machine, one chunk in flight per follower,
 * resent when unanswered for {@link #RESEND_TICKS}; as follower it writes the chunks into the state machine in order
 * and, once the last is in, steps the {@code InstallSnapshot} into its core, which then asks (through its Ready) for
 * the restore. The core repeats its {@code InstallSnapshot} while a follower lacks the snapshot; a repeat for a
 * transfer under way changes nothing.
 */
final class SnapshotTransfers {
    /** Followers this loop sends snapshots to at once; a core's request beyond it waits for its next repeat. */
    static final int SENDS_MAX = 8;
    /** Ticks without an answer after which the chunk in flight is sent again. */
    static final int RESEND_TICKS = 10;

    private final int self;
    private final int chunkBytes;
    private final IntFunction<GroupReplica> groups;
    private final BiConsumer<Integer, FrameCodec.GroupMessage> out;
    private final Map<Long, Send> sends = new HashMap<>();
    private final Map<Integer, Receive> receives = new HashMap<>();

    /** A snapshot going to one follower of one group. */
    private static final class Send {
        final int group;
        final int peer;
        final long term;
        final SnapshotMeta snapshot;
        long offset;
        int inFlightBytes;
        boolean inFlightLast;
        int ticksUnanswered;

        Send(int group, int peer, long term, SnapshotMeta snapshot) {
            this.group = group;
            this.peer = peer;
            this.term = term;
            this.snapshot = snapshot;
        }
    }

    /** A leader's snapshot arriving for one group. */
    private record Receive(SnapshotMeta snapshot, int leader, long[] nextOffset) {
    }

    /**
     * @param groups this loop's group by id (null when it holds none by that id)
     * @param out queues one message for a peer
     */
    SnapshotTransfers(int self, int chunkBytes, IntFunction<GroupReplica> groups,
            BiConsumer<Integer, FrameCodec.GroupMessage> out) {
        this.self = self;
        this.chunkBytes = chunkBytes;
        this.groups = groups;
        this.out = out;
    }

    private static long key(int group, int peer) {
        return ((long) group << 32) | (peer & 0xFFFF_FFFFL);
    }

    /** The core of {@code replica}, as leader, says follower {@code request.to()} needs its snapshot. */
    void onInstallSnapshot(GroupReplica replica, Message.InstallSnapshot request) {
        SnapshotMeta snapshot = new SnapshotMeta(request.snapshotIndex(), request.snapshotTerm(), request.voters());
        long key = key(replica.group, request.to());
        Send current = sends.get(key);
        if (current != null && current.snapshot.equals(snapshot) && current.term == request.term()) {
            return;
        }
        if (current == null && sends.size() >= SENDS_MAX) {
            return;
        }
        Send send = new Send(replica.group, request.to(), request.term(), snapshot);
        sends.put(key, send);
        sendChunk(replica, send);
    }

    private void sendChunk(GroupReplica replica, Send send) {
        GroupStateMachine.SnapshotPiece piece = replica.machine.readSnapshot(send.snapshot, send.offset, chunkBytes);
        if (piece == null) {
            // The machine keeps a later snapshot now; the core will name it in its next request.
            sends.remove(key(send.group, send.peer));
            return;
        }
        send.inFlightBytes = piece.data().length;
        send.inFlightLast = piece.last();
        send.ticksUnanswered = 0;
        out.accept(send.peer, new FrameCodec.GroupMessage(send.group, new SnapshotTraffic.Chunk(self, send.peer,
                send.term, send.snapshot.raftIndex(), send.snapshot.term(), send.snapshot.voters(), send.offset,
                piece.last(), piece.data())));
    }

    /** A follower's answer: the next chunk goes, or the transfer is over, or it starts again where asked. */
    void onAck(GroupReplica replica, SnapshotTraffic.Ack ack) {
        long key = key(replica.group, ack.from());
        Send send = sends.get(key);
        if (send == null || send.snapshot.raftIndex() != ack.snapshotIndex()) {
            return;
        }
        long expected = send.offset + send.inFlightBytes;
        if (ack.nextOffset() == expected && send.inFlightLast) {
            sends.remove(key);
        } else if (ack.nextOffset() == expected || ack.nextOffset() <= send.offset) {
            send.offset = ack.nextOffset();
            sendChunk(replica, send);
        }
    }

    /** A tick: resend what went unanswered, forget transfers of groups this replica no longer leads in that term. */
    void tick() {
        Iterator<Send> each = sends.values().iterator();
        while (each.hasNext()) {
            Send send = each.next();
            GroupReplica replica = groups.apply(send.group);
            if (replica == null || replica.node.status().role() != Role.LEADER
                    || replica.node.status().term() != send.term) {
                each.remove();
            } else if (++send.ticksUnanswered >= RESEND_TICKS) {
                sendChunk(replica, send);
            }
        }
    }

    /** A chunk from a leader: written in order, acknowledged; the last one hands the snapshot to the core. */
    void onChunk(GroupReplica replica, SnapshotTraffic.Chunk chunk) {
        if (chunk.term() < replica.node.status().term()) {
            return;
        }
        SnapshotMeta snapshot = new SnapshotMeta(chunk.snapshotIndex(), chunk.snapshotTerm(), chunk.voters());
        Receive receive = receives.get(replica.group);
        boolean same = receive != null && receive.snapshot().equals(snapshot) && receive.leader() == chunk.from();
        if (!same) {
            if (chunk.offset() != 0) {
                ack(replica.group, chunk, 0);
                return;
            }
            replica.machine.beginRestore(snapshot);
            receive = new Receive(snapshot, chunk.from(), new long[] {0});
            receives.put(replica.group, receive);
        }
        long next = receive.nextOffset()[0];
        if (chunk.offset() != next) {
            // A repeat of a chunk already written (its answer was lost) or one past a gap: say where we are.
            ack(replica.group, chunk, next);
            return;
        }
        replica.machine.writeRestore(snapshot, chunk.offset(), chunk.data());
        next += chunk.data().length;
        receive.nextOffset()[0] = next;
        if (chunk.last()) {
            receives.remove(replica.group);
            replica.node.step(new Message.InstallSnapshot(chunk.from(), self, chunk.term(), chunk.snapshotIndex(),
                    chunk.snapshotTerm(), chunk.voters()));
        }
        ack(replica.group, chunk, next);
    }

    private void ack(int group, SnapshotTraffic.Chunk chunk, long nextOffset) {
        out.accept(chunk.from(), new FrameCodec.GroupMessage(group, new SnapshotTraffic.Ack(self, chunk.from(),
                chunk.term(), chunk.snapshotIndex(), nextOffset)));
    }

    /** The group left this loop: its transfers end. */
    void forget(int group) {
        receives.remove(group);
        sends.values().removeIf(send -> send.group == group);
    }

    /** Transfers under way, sending and receiving (for tests). */
    int inProgress() {
        return sends.size() + receives.size();
    }
}
