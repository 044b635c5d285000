package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.runtime.LeadershipListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who leads each engine group as this broker sees it, kept from the engine's {@link LeadershipListener} (called on
 * the loop threads), read from any thread. Replica ids are node id + 1. Also completes the waits of leadership
 * transfers: the engine says a transfer started; it is done when the target is reported serving.
 */
final class EngineLeaderships implements LeadershipListener {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLeaderships.class);

    /** One group's leader replica ({@link RaftNode#NONE} when unknown), term, and whether this replica serves. */
    record Role(int leaderReplica, long term, boolean serving) {
    }

    private record Wait(int replica, CompletableFuture<Boolean> done) {
    }

    private final int selfReplica;
    private final Map<Integer, Role> roles = new ConcurrentHashMap<>();
    private final Map<Integer, List<Wait>> waits = new ConcurrentHashMap<>();
    /** Names each group in log lines; set once the host knows which partition a group is. */
    private final Map<Integer, String> names = new ConcurrentHashMap<>();

    EngineLeaderships(int selfReplica) {
        this.selfReplica = selfReplica;
    }

    void name(int group, String partition) {
        names.put(group, partition);
    }

    @Override
    public void onLeadership(int group, int leader, long term, boolean serving) {
        Role previous = roles.put(group, new Role(leader, term, serving));
        boolean ledBefore = previous != null && previous.serving();
        if (serving != ledBefore) {
            LOG.info("{}: this broker {} its leader (term {})", names.getOrDefault(group, "group " + group),
                    serving ? "is now" : "is no longer", term);
        }
        List<Wait> pending = waits.get(group);
        if (pending != null && leader != RaftNode.NONE) {
            for (Wait wait : pending) {
                if (wait.replica() == leader && (leader != selfReplica || serving)) {
                    wait.done().complete(true);
                    pending.remove(wait);
                }
            }
        }
    }

    /** The group's leadership as the API reports it: node ids, the term as leader epoch. */
    Leadership leadership(int group) {
        Role role = roles.get(group);
        if (role == null) {
            return Leadership.UNKNOWN;
        }
        int leaderNode = role.leaderReplica() == RaftNode.NONE ? -1 : role.leaderReplica() - 1;
        return new Leadership(leaderNode, (int) role.term(), role.serving() && role.leaderReplica() == selfReplica);
    }

    /** Whether this replica leads the group and serves (has committed an entry of its term). */
    boolean serving(int group) {
        Role role = roles.get(group);
        return role != null && role.serving() && role.leaderReplica() == selfReplica;
    }

    /**
     * Completes with true once {@code replica} is reported leading {@code group}, false after {@code timeoutMs}; at
     * once true when it already does.
     */
    CompletableFuture<Boolean> awaitLeader(int group, int replica, long timeoutMs) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Wait wait = new Wait(replica, done);
        waits.computeIfAbsent(group, g -> new CopyOnWriteArrayList<>()).add(wait);
        Role role = roles.get(group);
        if (role != null && role.leaderReplica() == replica && (replica != selfReplica || role.serving())) {
            done.complete(true);
        }
        return done.completeOnTimeout(false, timeoutMs, TimeUnit.MILLISECONDS).whenComplete((led, error) -> {
            List<Wait> pending = waits.get(group);
            if (pending != null) {
                pending.remove(wait);
            }
        });
    }

    /** The group was removed here. */
    void forget(int group) {
        roles.remove(group);
        names.remove(group);
        List<Wait> pending = waits.remove(group);
        if (pending != null) {
            pending.forEach(wait -> wait.done().complete(false));
        }
    }
}
