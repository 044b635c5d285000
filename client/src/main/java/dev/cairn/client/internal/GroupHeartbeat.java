package dev.cairn.client.internal;

import dev.cairn.client.CairnException;
import dev.cairn.client.ConsumerConfig;
import dev.cairn.protocol.ErrorCode;
import java.util.concurrent.CompletableFuture;

/**
 * The background thread of a group member, as kafka-clients' heartbeat thread: while the member is stable it sends
 * a Heartbeat every heartbeat.interval.ms (one in flight at most), turns the answers into rejoin, lost-member or
 * coordinator-moved signals for {@link GroupMembership}, marks the coordinator unknown when no heartbeat succeeded
 * within session.timeout.ms, and leaves the group when the application has not polled within
 * max.poll.interval.ms (the member's partitions are then lost, and it rejoins at its next poll).
 */
final class GroupHeartbeat implements AutoCloseable {
    private final GroupMembership membership;
    private final ConsumerConfig config;
    private final ClusterClient cluster;
    private final Object lock = new Object();
    private Thread thread;
    private boolean closed;
    private long lastPollMs = System.currentTimeMillis();
    private long lastSentMs;
    private long lastOkMs = System.currentTimeMillis();
    private CompletableFuture<ErrorCode> inFlight;

    GroupHeartbeat(GroupMembership membership, ConsumerConfig config, ClusterClient cluster) {
        this.membership = membership;
        this.config = config;
        this.cluster = cluster;
    }

    void startIfNeeded() {
        synchronized (lock) {
            if (thread != null || closed) {
                return;
            }
            thread = new Thread(this::run, "cairn-heartbeat-" + config.clientId());
            thread.setDaemon(true);
            thread.start();
        }
    }

    void onPoll(long nowMs) {
        synchronized (lock) {
            lastPollMs = nowMs;
        }
    }

    /** A (re)join completed: the session starts afresh. */
    void onStable(long nowMs) {
        synchronized (lock) {
            lastOkMs = nowMs;
            lastSentMs = 0;
            lock.notifyAll();
        }
    }

    private void run() {
        while (true) {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                try {
                    lock.wait(Math.max(1, config.heartbeatIntervalMs() / 4));
                } catch (InterruptedException interrupted) {
                    return;
                }
                if (closed) {
                    return;
                }
            }
            try {
                tick(System.currentTimeMillis());
            } catch (CairnException failed) {
                // The coordinator is unreachable or unknown: the consumer thread rediscovers it on its next poll.
                membership.markCoordinatorUnknown();
            }
        }
    }

    private void tick(long now) {
        long sinceOk;
        long sinceSent;
        long sincePoll;
        synchronized (lock) {
            sinceOk = now - lastOkMs;
            sinceSent = now - lastSentMs;
            sincePoll = now - lastPollMs;
            if (inFlight != null && !inFlight.isDone()) {
                if (sinceSent > config.requestTimeoutMs()) {
                    inFlight.cancel(false);
                    inFlight = null;
                    membership.markCoordinatorUnknown();
                }
                return;
            }
        }
        if (!membership.isStable()) {
            return;
        }
        if (sincePoll > config.maxPollIntervalMs()) {
            // kafka-clients' behaviour: an application stuck between polls gives up its membership.
            membership.leave();
            membership.markLost(true);
            return;
        }
        if (sinceOk > config.sessionTimeoutMs()) {
            membership.markCoordinatorUnknown();
        }
        if (sinceSent < config.heartbeatIntervalMs()) {
            return;
        }
        int coordinator = membership.knownCoordinator();
        if (coordinator < 0) {
            coordinator = membership.coordinator();
        }
        GroupMembership.SentHeartbeat sent = membership.heartbeatIfStable(cluster.coordinatorConnection(coordinator));
        if (sent == null) {
            return; // A rejoin began since the check above.
        }
        synchronized (lock) {
            lastSentMs = now;
            inFlight = sent.answer();
        }
        sent.answer().whenComplete((error, failure) -> onResponse(sent.generationId(), error, failure));
    }

    private void onResponse(int sentGeneration, ErrorCode error, Throwable failure) {
        if (failure != null) {
            membership.markCoordinatorUnknown();
            return;
        }
        if (error == ErrorCode.NONE) {
            synchronized (lock) {
                lastOkMs = System.currentTimeMillis();
            }
            return;
        }
        if (membership.member().generationId() != sentGeneration || !membership.isStable()) {
            // The member rejoined or is rejoining: the answer is about a generation it is leaving, and the JoinGroup
            // or SyncGroup it sent will tell whether it is still a member (kafka-clients ignores these answers too).
            return;
        }
        membership.onGroupError(error);
    }

    @Override
    public void close() {
        Thread running;
        synchronized (lock) {
            closed = true;
            running = thread;
            lock.notifyAll();
        }
        if (running != null) {
            try {
                running.join(config.requestTimeoutMs());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
