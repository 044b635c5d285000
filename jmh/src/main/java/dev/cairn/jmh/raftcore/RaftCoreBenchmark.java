package dev.cairn.jmh.raftcore;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.Message;
import dev.cairn.raft.RaftConfig;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.Ready;
import dev.cairn.raft.Role;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The CPU cost of Cairn's own Raft core ({@code dev.cairn.raft}, docs/multi-raft.md) with nothing else: groups of
 * three replicas in one thread, messages handed over in memory, nothing persisted. {@code tickIdleGroups}: one tick
 * of every replica of {@code groups} quiet groups (what a runtime would pay per tick if it did not skip quiet groups
 * at all). {@code commitOneEntry}: one 100-byte entry proposed to a group's leader and passed around until all three
 * replicas applied it. The core keeps its whole log in memory (no compaction yet), so the groups are built anew
 * for each iteration; keep iterations short ({@code -r 2}).
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RaftCoreBenchmark {

    private static final int REPLICAS = 3;
    private static final int ENTRY_BYTES = 100;
    private static final int SETTLE_TICKS_MAX = 10_000;

    @Param({"1000"})
    int groups;

    private final List<Group> all = new ArrayList<>();
    private final byte[] entry = new byte[ENTRY_BYTES];

    /** One group's three replicas and the messages between them. */
    static final class Group {
        final RaftNode[] replicas = new RaftNode[REPLICAS];
        final ArrayDeque<Message> network = new ArrayDeque<>();
        long applied;

        Group(long seed) {
            List<Integer> voters = List.of(1, 2, 3);
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < REPLICAS; i++) {
                replicas[i] = RaftNode.start(i + 1, voters, RaftConfig.defaults(), random.split(), HardState.INITIAL,
                        List.of(), 0);
            }
        }

        void tick() {
            for (RaftNode replica : replicas) {
                replica.tick();
                drain(replica);
            }
            deliver();
        }

        void deliver() {
            Message message;
            while ((message = network.poll()) != null) {
                RaftNode target = replicas[message.to() - 1];
                target.step(message);
                drain(target);
            }
        }

        void drain(RaftNode replica) {
            while (replica.hasReady()) {
                Ready ready = replica.ready();
                network.addAll(ready.messages());
                applied += ready.committed().size();
                replica.advance(ready);
            }
        }

        RaftNode leader() {
            for (RaftNode replica : replicas) {
                if (replica.status().role() == Role.LEADER) {
                    return replica;
                }
            }
            return null;
        }

        boolean quiet() {
            for (RaftNode replica : replicas) {
                if (!replica.status().quiesced()) {
                    return false;
                }
            }
            return network.isEmpty();
        }
    }

    @Setup(Level.Iteration)
    public void setUp() {
        all.clear();
        for (int g = 0; g < groups; g++) {
            Group group = new Group(g);
            for (int tick = 0; tick < SETTLE_TICKS_MAX && !group.quiet(); tick++) {
                group.tick();
            }
            if (!group.quiet()) {
                throw new IllegalStateException("group " + g + " did not elect a leader and go quiet");
            }
            all.add(group);
        }
    }

    /** One tick of every replica of every quiet group; the score divided by 3 x groups is the cost per replica. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    public void tickIdleGroups() {
        for (Group group : all) {
            group.tick();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    public long commitOneEntry() {
        Group group = all.get(0);
        RaftNode leader = group.leader();
        long before = group.applied;
        leader.propose(entry, Entry.NO_TAIL);
        group.drain(leader);
        group.deliver();
        if (group.applied - before != REPLICAS) {
            throw new IllegalStateException("the entry was not applied on every replica");
        }
        return group.applied;
    }
}
