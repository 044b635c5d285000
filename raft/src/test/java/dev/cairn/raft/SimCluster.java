package dev.cairn.raft;

import java.nio.charset.StandardCharsets;
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

    /** How the network misbehaves. */
    record Faults(double dropRate, double duplicateRate, int delayTicksMax, double peerDownReportRate) {
        static final Faults NONE = new Faults(0, 0, 1, 1.0);
        static final Faults CHAOS = new Faults(0.05, 0.02, 4, 0.2);
        /** Messages up to four election timeouts late: answers from old terms reach replicas long after. */
        static final Faults LATE = new Faults(0.05, 0.02, 40, 0.2);
    }

    final long seed;
    final RaftConfig config;
    final List<Integer> voters = new ArrayList<>();
    final Map<Integer, Replica> replicas = new HashMap<>();
    Faults faults;
    long now;
    long messagesDelivered;
    private final SplittableRandom random;
    private final List<InFlight> network = new ArrayList<>();
    private final Set<Long> cuts = new HashSet<>();
    private final Map<Long, Integer> leaderByTerm = new HashMap<>();
    private final Map<Long, Entry> appliedAnywhere = new HashMap<>();

    private record InFlight(long deliverAt, Message message) {
    }

    /** One replica and what its runtime persisted and applied. */
    final class Replica {
        final int id;
        RaftNode node;
        HardState hardState = HardState.INITIAL;
        final List<Entry> persisted = new ArrayList<>();
        final List<Entry> applied = new ArrayList<>();
        boolean up = true;

        Replica(int id) {
            this.id = id;
            start();
        }

        void start() {
            applied.clear();
            node = RaftNode.start(id, voters, config, random.split(), hardState, persisted, 0);
        }
    }

    SimCluster(long seed, int size, RaftConfig config, Faults faults) {
        this.seed = seed;
        this.config = config;
        this.faults = faults;
        this.random = new SplittableRandom(seed);
        for (int id = 1; id <= size; id++) {
            voters.add(id);
        }
        for (int id : voters) {
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

    /** The per-broker failure detector: a replica learns, now and then, of each peer it cannot reach. */
    private void reportUnreachablePeers(Replica replica) {
        for (int peer : voters) {
            boolean reported = random.nextDouble() < faults.peerDownReportRate();
            if (peer != replica.id && !reachable(replica.id, peer) && reported) {
                replica.node.onPeerDown(peer);
            }
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
        long raftIndex = replica.node.propose(command.getBytes(StandardCharsets.UTF_8));
        drain(replica);
        return raftIndex;
    }

    /** Carries out every Ready of a replica the way a runtime must: persist, send, apply, advance. */
    void drain(Replica replica) {
        while (replica.node.hasReady()) {
            Ready ready = replica.node.ready();
            if (ready.hardState() != null) {
                replica.hardState = ready.hardState();
            }
            if (!ready.entries().isEmpty()) {
                long first = ready.entries().get(0).raftIndex();
                check(first - 1 <= replica.persisted.size(), "persist at %s past the end %s", first,
                        replica.persisted.size());
                replica.persisted.subList((int) (first - 1), replica.persisted.size()).clear();
                replica.persisted.addAll(ready.entries());
            }
            ready.messages().forEach(this::transmit);
            ready.committed().forEach(entry -> apply(replica, entry));
            replica.node.advance(ready);
            checkLeader(replica);
        }
    }

    private void transmit(Message message) {
        if (random.nextDouble() < faults.dropRate()) {
            return;
        }
        int copies = random.nextDouble() < faults.duplicateRate() ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            network.add(new InFlight(now + 1 + random.nextInt(faults.delayTicksMax()), message));
        }
    }

    private void apply(Replica replica, Entry entry) {
        check(entry.raftIndex() == replica.applied.size() + 1L, "replica %s applied %s after %s", replica.id,
                entry.raftIndex(), replica.applied.size());
        Entry earlier = appliedAnywhere.putIfAbsent(entry.raftIndex(), entry);
        check(earlier == null || earlier.equals(entry), "replica %s applied %s where another applied %s", replica.id,
                entry, earlier);
        replica.applied.add(entry);
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
            for (Entry entry : appliedAnywhere.values()) {
                check(node.termAt(entry.raftIndex()) == entry.term(), "leader %s of term %s lacks applied %s",
                        replica.id, term, entry);
            }
        }
    }

    void crash(int id) {
        replicas.get(id).up = false;
    }

    void restart(int id) {
        Replica replica = replicas.get(id);
        replica.up = true;
        replica.start();
        drain(replica);
    }

    void cut(int from, int to) {
        cuts.add(pair(from, to));
    }

    void isolate(int id) {
        for (int peer : voters) {
            if (peer != id) {
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
