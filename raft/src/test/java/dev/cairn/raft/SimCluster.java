package dev.cairn.raft;

import dev.cairn.raft.storage.RaftWal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A seeded simulation of one Raft group: replicas on a network that delays, drops, duplicates and reorders messages,
 * can be cut between any two replicas, and replicas that crash (losing nothing they persisted, since the runtime
 * persists before it sends) and restart. After every step it checks Raft's safety properties (Raft figure 3):
 * at most one leader per term, every replica applies the same entry at each index, a new leader holds every entry
 * applied anywhere. A failure names the seed; the tests replay it.
 */
final class SimCluster {

    /**
     * How the network misbehaves, and how often a replica snapshots its state machine and compacts its log (per
     * replica per tick).
     */
    record Faults(double dropRate, double duplicateRate, int delayTicksMax, double peerDownReportRate,
            double compactRate) {
        static final Faults NONE = new Faults(0, 0, 1, 1.0, 0);
        static final Faults CHAOS = new Faults(0.05, 0.02, 4, 0.2, 0.01);
        /** Messages up to four election timeouts late: answers from old terms reach replicas long after. */
        static final Faults LATE = new Faults(0.05, 0.02, 40, 0.2, 0.01);
    }

    final long seed;
    final RaftConfig config;
    /** Leadership handovers started (thesis 3.10). */
    int transfers;
    /** When set, every replica also persists through a RaftWal of its own here, and restarts from it. */
    Path walRoot;
    /** The voters every replica starts with; the group's configuration may change from them. */
    final List<Integer> voters = new ArrayList<>();
    /** Every replica: the starting voters, then spares that start outside the group. */
    final List<Integer> ids = new ArrayList<>();
    final Map<Integer, Replica> replicas = new HashMap<>();
    Faults faults;
    long now;
    long messagesDelivered;
    /** Snapshots installed from a leader, over the run. */
    long restores;
    private final SplittableRandom random;
    private final List<InFlight> network = new ArrayList<>();
    private final Set<Long> cuts = new HashSet<>();
    /** (replica, peer) pairs whose peer the replica was last told is down. */
    private final Set<Long> reportedDown = new HashSet<>();
    private final Map<Long, Integer> leaderByTerm = new HashMap<>();
    private final Map<Long, Entry> appliedAnywhere = new HashMap<>();

    /** A message on the network; an InstallSnapshot carries the leader's state machine snapshot with it. */
    private record InFlight(long deliverAt, Message message, List<Entry> snapshotData) {
    }

    /** One replica and what its runtime persisted and applied. */
    final class Replica {
        final int id;
        RaftNode node;
        HardState hardState = HardState.INITIAL;
        /** The persisted snapshot: where it stands, and the state machine it holds (the entries applied to it). */
        SnapshotMeta snapshot = SnapshotMeta.NONE;
        List<Entry> snapshotData = List.of();
        /** Persisted entries after the snapshot. */
        final List<Entry> persisted = new ArrayList<>();
        final List<Entry> applied = new ArrayList<>();
        /** Snapshots received with InstallSnapshot messages, until the replica's Ready says to restore one. */
        final Map<SnapshotMeta, List<Entry>> received = new HashMap<>();
        boolean up = true;
        RaftWal wal;
        /** Vote requests (pre-votes included) this replica has sent. */
        int voteRequestsSent;

        Replica(int id) {
            this.id = id;
            start();
        }

        void start() {
            applied.clear();
            applied.addAll(snapshotData);
            received.clear();
            node = RaftNode.start(id, voters, config, random.split(), hardState, snapshot, persisted,
                    snapshot.raftIndex());
        }

        /** Snapshots the state machine at what it applied and lets the log drop those entries. */
        void compact() {
            if (applied.size() <= snapshot.raftIndex()) {
                return;
            }
            Entry last = applied.get(applied.size() - 1);
            List<Integer> votersThere = node.votersAt(last.raftIndex());
            node.compact(last.raftIndex());
            persisted.subList(0, (int) (last.raftIndex() - snapshot.raftIndex())).clear();
            snapshot = new SnapshotMeta(last.raftIndex(), last.term(), votersThere);
            snapshotData = List.copyOf(applied);
            if (wal != null) {
                wal.appendSnapshot(0, snapshot);
                sync(this);
            }
        }
    }

    SimCluster(long seed, int size, RaftConfig config, Faults faults) {
        this(seed, size, 0, config, faults);
    }

    /** A group of voters 1 to {@code size}, and {@code spares} more replicas that start outside it (to be added). */
    SimCluster(long seed, int size, int spares, RaftConfig config, Faults faults) {
        this.seed = seed;
        this.config = config;
        this.faults = faults;
        this.random = new SplittableRandom(seed);
        for (int id = 1; id <= size; id++) {
            voters.add(id);
        }
        for (int id = 1; id <= size + spares; id++) {
            ids.add(id);
            replicas.put(id, new Replica(id));
        }
    }

    Replica replica(int id) {
        return replicas.get(id);
    }

    /** One tick: every live replica ticks, then the network delivers what is due. */
    void tick() {
        now++;
        for (Replica replica : replicas.values()) {
            if (replica.up) {
                reportUnreachablePeers(replica);
                if (random.nextDouble() < faults.compactRate()) {
                    replica.compact();
                }
                replica.node.tick();
                drain(replica);
            }
        }
        deliverDue();
    }

    void run(int ticks) {
        for (int i = 0; i < ticks; i++) {
            tick();
        }
    }

    /**
     * The per-broker failure detector: a replica learns, now and then, of each peer it cannot reach, and of each
     * peer it had been told was down once it can reach it again.
     */
    private void reportUnreachablePeers(Replica replica) {
        for (int peer : ids) {
            boolean reported = random.nextDouble() < faults.peerDownReportRate();
            if (peer == replica.id || !reported) {
                continue;
            }
            long pair = pair(replica.id, peer);
            if (!reachable(replica.id, peer)) {
                reportedDown.add(pair);
                replica.node.onPeerDown(peer);
            } else if (reportedDown.remove(pair)) {
                replica.node.onPeerUp(peer);
            }
            // Out now, before a compaction changes the snapshot a message in the outbox names.
            drain(replica);
        }
    }

    private boolean reachable(int from, int to) {
        return replicas.get(to).up && replicas.get(from).up && !cuts.contains(pair(from, to))
                && !cuts.contains(pair(to, from));
    }

    private void deliverDue() {
        List<InFlight> due = new ArrayList<>();
        network.removeIf(m -> {
            boolean isDue = m.deliverAt() <= now;
            if (isDue) {
                due.add(m);
            }
            return isDue;
        });
        for (InFlight inFlight : due) {
            Message message = inFlight.message();
            Replica target = replicas.get(message.to());
            if (target.up && !cuts.contains(pair(message.from(), message.to()))) {
                messagesDelivered++;
                if (message instanceof Message.InstallSnapshot install) {
                    target.received.put(install.snapshot(), inFlight.snapshotData());
                }
                target.node.step(message);
                drain(target);
            }
        }
    }

    /** Delivers every message on the network, and those they cause, without a tick (no heartbeat, no timeout). */
    void deliverAllWithoutTicks() {
        while (!network.isEmpty()) {
            now++;
            deliverDue();
        }
    }

    /** Proposes {@code command} at replica {@code id}; its index, or a REFUSED_ code. */
    long propose(int id, String command) {
        Replica replica = replicas.get(id);
        long raftIndex = replica.node.propose(command.getBytes(StandardCharsets.UTF_8), Entry.NO_TAIL);
        drain(replica);
        return raftIndex;
    }

    /** Asks replica {@code id} to make {@code next} the voters; the entry's index, a REFUSED_ code, or 0 if refused. */
    long changeVoters(int id, List<Integer> next) {
        Replica replica = replicas.get(id);
        if (!replica.up) {
            return 0;
        }
        long raftIndex = replica.node.proposeVoters(next);
        drain(replica);
        return raftIndex;
    }

    /** Asks replica {@code id}, if it is up and leads, to catch {@code peer} up as a learner. */
    void catchUp(int id, int peer) {
        Replica replica = replicas.get(id);
        if (replica.up && replica.node.catchUp(peer)) {
            drain(replica);
        }
    }

    /** Asks replica {@code id}, if it is up, to hand its leadership to {@code target} (refused unless it leads). */
    void transferLeadership(int id, int target) {
        Replica replica = replicas.get(id);
        if (replica.up && replica.node.transferLeadership(target)) {
            transfers++;
            drain(replica);
        }
    }

    /** Carries out every Ready of a replica the way a runtime must: persist, send, apply, advance. */
    void drain(Replica replica) {
        while (replica.node.hasReady()) {
            Ready ready = replica.node.ready();
            if (replica.wal != null) {
                if (ready.snapshot() != null) {
                    replica.wal.appendSnapshot(0, ready.snapshot());
                }
                replica.wal.append(0, ready.hardState(), ready.entries());
                sync(replica);
            }
            if (ready.snapshot() != null) {
                restore(replica, ready.snapshot());
            }
            if (ready.hardState() != null) {
                replica.hardState = ready.hardState();
            }
            if (!ready.entries().isEmpty()) {
                long first = ready.entries().get(0).raftIndex() - replica.snapshot.raftIndex();
                check(first - 1 <= replica.persisted.size(), "persist at %s past the end %s", first,
                        replica.persisted.size());
                replica.persisted.subList((int) (first - 1), replica.persisted.size()).clear();
                replica.persisted.addAll(ready.entries());
            }
            ready.messages().forEach(message -> transmit(replica, message));
            ready.committed().forEach(entry -> apply(replica, entry));
            replica.node.advance(ready);
            checkLeader(replica);
            checkConfiguration(replica);
        }
    }

    private void transmit(Replica sender, Message message) {
        if (message instanceof Message.VoteRequest) {
            sender.voteRequestsSent++;
        }
        List<Entry> snapshotData = null;
        if (message instanceof Message.InstallSnapshot install) {
            check(install.snapshot().equals(sender.snapshot), "replica %s sent snapshot %s but holds %s", sender.id,
                    install.snapshot(), sender.snapshot);
            snapshotData = sender.snapshotData;
        }
        if (random.nextDouble() < faults.dropRate()) {
            return;
        }
        int copies = random.nextDouble() < faults.duplicateRate() ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            network.add(new InFlight(now + 1 + random.nextInt(faults.delayTicksMax()), message, snapshotData));
        }
    }

    /** The replica's log was replaced by a leader's snapshot: its state machine and storage start from it. */
    private void restore(Replica replica, SnapshotMeta snapshot) {
        List<Entry> data = replica.received.get(snapshot);
        check(data != null && data.size() == snapshot.raftIndex(), "replica %s restores %s it never received",
                replica.id, snapshot);
        for (Entry entry : data) {
            Entry earlier = appliedAnywhere.get(entry.raftIndex());
            check(earlier == null || earlier.equals(entry), "snapshot %s holds %s where %s applied", snapshot, entry,
                    earlier);
        }
        replica.snapshot = snapshot;
        replica.snapshotData = data;
        replica.persisted.clear();
        replica.applied.clear();
        replica.applied.addAll(data);
        replica.received.clear();
        restores++;
    }

    private void apply(Replica replica, Entry entry) {
        check(entry.raftIndex() == replica.applied.size() + 1L, "replica %s applied %s after %s", replica.id,
                entry.raftIndex(), replica.applied.size());
        Entry earlier = appliedAnywhere.putIfAbsent(entry.raftIndex(), entry);
        check(earlier == null || earlier.equals(entry), "replica %s applied %s where another applied %s", replica.id,
                entry, earlier);
        replica.applied.add(entry);
    }

    /**
     * Section 4.1: a replica uses the latest configuration in its log, committed or not, and the one before once a
     * leader replaced it; worked out here from what it persisted, its snapshot and the voters it started with.
     */
    private void checkConfiguration(Replica replica) {
        List<Integer> expected = replica.snapshot.voters().isEmpty() ? voters : replica.snapshot.voters();
        for (int i = replica.persisted.size() - 1; i >= 0; i--) {
            List<Integer> named = Membership.voters(replica.persisted.get(i));
            if (named != null) {
                expected = named;
                break;
            }
        }
        check(replica.node.voters().equals(expected), "replica %s uses the voters %s, its log says %s", replica.id,
                replica.node.voters(), expected);
    }

    private void checkLeader(Replica replica) {
        RaftNode node = replica.node;
        if (node.status().role() != Role.LEADER) {
            return;
        }
        long term = node.status().term();
        Integer earlier = leaderByTerm.putIfAbsent(term, replica.id);
        check(earlier == null || earlier == replica.id, "two leaders in term %s: %s and %s", term, earlier, replica.id);
        if (earlier == null) {
            // A replica whose own removal is not committed may finish it as leader (RaftState.mayCampaign).
            check(node.voters().contains(replica.id)
                    || node.votersAt(node.status().commitIndex()).contains(replica.id),
                    "replica %s elected in term %s outside its voters %s", replica.id, term, node.voters());
            for (Entry entry : appliedAnywhere.values()) {
                // Below its snapshot the leader's entries are in its state machine, which restores check.
                boolean compacted = entry.raftIndex() < replica.snapshot.raftIndex();
                check(compacted || node.termAt(entry.raftIndex()) == entry.term(),
                        "leader %s of term %s lacks applied %s", replica.id, term, entry);
            }
        }
    }

    void crash(int id) {
        Replica replica = replicas.get(id);
        replica.up = false;
        if (replica.wal != null) {
            try {
                replica.wal.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            replica.wal = null;
        }
    }

    static final long WAL_SEGMENT_BYTES = 1024;

    /** Opens a replica's log; on a restart, what it recovers must be what the simulation knows was persisted. */
    private void openWal(Replica replica, boolean restarting) {
        try {
            // Small segments, so that compactions make whole segments useless and the log deletes them.
            RaftWal.Opened opened = RaftWal.open(walRoot.resolve("replica-" + replica.id), WAL_SEGMENT_BYTES);
            replica.wal = opened.wal();
            RaftWal.GroupState recovered = opened.groups().getOrDefault(0, RaftWal.GroupState.EMPTY);
            if (restarting) {
                check(recovered.equals(new RaftWal.GroupState(replica.hardState, replica.snapshot,
                        List.copyOf(replica.persisted))), "replica %s recovered %s from its log", replica.id,
                        recovered);
                check(recovered.snapshot().voters().equals(replica.snapshot.voters()),
                        "replica %s recovered the voters %s of its snapshot, not %s", replica.id,
                        recovered.snapshot().voters(), replica.snapshot.voters());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sync(Replica replica) {
        try {
            replica.wal.sync(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every replica persists through a RaftWal under {@code root} from now on (call before the first tick). */
    void persistTo(Path root) {
        walRoot = root;
        replicas.values().forEach(replica -> openWal(replica, false));
    }

    void restart(int id) {
        Replica replica = replicas.get(id);
        if (walRoot != null) {
            openWal(replica, true);
        }
        replica.up = true;
        replica.start();
        drain(replica);
    }

    void cut(int from, int to) {
        cuts.add(pair(from, to));
    }

    void isolate(int id) {
        for (int peer : ids) {
            if (peer != id) {
                cut(id, peer);
                cut(peer, id);
            }
        }
    }

    /** Cuts every link of {@code id} in both directions except those with {@code kept}. */
    void isolateExcept(int id, int... kept) {
        for (int peer : ids) {
            boolean keep = peer == id || java.util.Arrays.stream(kept).anyMatch(k -> k == peer);
            if (!keep) {
                cut(id, peer);
                cut(peer, id);
            }
        }
    }

    void heal() {
        cuts.clear();
    }

    /** The live replica that leads in the highest term, or 0. */
    int leader() {
        int leader = 0;
        long term = -1;
        for (Replica replica : replicas.values()) {
            if (replica.up && replica.node.status().role() == Role.LEADER && replica.node.status().term() > term) {
                leader = replica.id;
                term = replica.node.status().term();
            }
        }
        return leader;
    }

    /** Ticks until {@code condition} holds, at most {@code ticksMax}; whether it did. */
    boolean runUntil(java.util.function.BooleanSupplier condition, int ticksMax) {
        for (int i = 0; i < ticksMax; i++) {
            if (condition.getAsBoolean()) {
                return true;
            }
            tick();
        }
        return condition.getAsBoolean();
    }

    boolean networkIdle() {
        return network.isEmpty();
    }

    private static long pair(int from, int to) {
        return ((long) from << 32) | to;
    }

    private void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new AssertionError("seed " + seed + " at tick " + now + ": " + String.format(format, args));
        }
    }
}
