package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnException;
import dev.cairn.client.ConsumerConfig;
import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Assignment;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import dev.cairn.client.internal.OffsetsClient.GroupMember;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.JoinGroupRequest;
import dev.cairn.protocol.message.JoinGroupResponse;
import dev.cairn.protocol.message.SyncGroupRequest;
import dev.cairn.protocol.message.SyncGroupResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One consumer's membership in a classic consumer group (Kafka's group protocol, protocol type "consumer"):
 * FindCoordinator, JoinGroup (answering MEMBER_ID_REQUIRED), the leader's assignment, SyncGroup, and the rejoin
 * that REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID ask for. Heartbeats, the session and
 * max.poll.interval.ms are watched by {@link GroupHeartbeat} on its own thread.
 *
 * <p>The consumer's thread drives joins through {@link #ensureActive}; JoinGroup and SyncGroup are sent
 * asynchronously and their futures kept, so a poll that times out mid-rebalance resumes where it stopped, and a
 * cooperative member can step the rebalance without waiting and go on fetching the partitions it keeps (the
 * {@code onGroupResponse} callback wakes its poll when an answer arrives). The leader also watches the topics it
 * assigned for added partitions ({@link PartitionCountWatch}). Fields shared with the heartbeat thread are guarded
 * by {@code this}.
 */
public final class GroupMembership implements AutoCloseable {
    /** The group protocol type of consumers; kafka-clients uses the same, so the two can share a group. */
    public static final String PROTOCOL_TYPE = "consumer";

    /** What the consumer does at the edges of a rebalance; every hook runs on the consumer's thread. */
    public interface Hooks {
        /** Before joining: commit if auto-committing; with the eager protocol, revoke every partition. */
        void onJoinPrepare(boolean cooperative);

        /** The partitions this member owns, sent in its subscription. */
        List<TopicPartition> ownedPartitions();

        /** The new assignment; returns true when a cooperative member revoked partitions and must rejoin. */
        boolean onJoinComplete(List<TopicPartition> assigned, boolean cooperative);

        /** The member was fenced or timed out: its partitions may already belong to others. */
        void onPartitionsLost();
    }

    private enum State { UNJOINED, JOINING, SYNCING, STABLE }

    private final ConsumerConfig config;
    private final ClusterClient cluster;
    private final OffsetsClient offsets;
    private final Hooks hooks;
    private final List<PartitionAssignor> assignors = new ArrayList<>();
    private final boolean cooperative;
    private final GroupHeartbeat heartbeat;
    private final PartitionCountWatch partitionCountWatch;
    private final Runnable onGroupResponse;
    private List<String> topics = List.of();

    // Guarded by this: shared with the heartbeat thread.
    private State state = State.UNJOINED;
    private String memberId = "";
    private int generationId = -1;
    private int coordinator = -1;
    private boolean rejoinNeeded = true;
    private boolean lost;

    // Consumer thread only.
    private CompletableFuture<Struct> pendingJoin;
    private CompletableFuture<Struct> pendingSync;
    private long requestSentMs;
    private boolean joinPrepared;
    private long backoffUntilMs;

    /**
     * @param onGroupResponse runs on a network thread when a JoinGroup or SyncGroup answer arrives, so that a poll
     *     waiting for fetches during a cooperative rebalance can take the next step at once
     */
    public GroupMembership(ConsumerConfig config, ClusterClient cluster, OffsetsClient offsets, Hooks hooks,
                           Runnable onGroupResponse) {
        this.config = config;
        this.cluster = cluster;
        this.offsets = offsets;
        this.hooks = hooks;
        this.onGroupResponse = onGroupResponse;
        this.partitionCountWatch = new PartitionCountWatch(config.metadataMaxAgeMs(), config.retryBackoffMs(),
                watched -> cluster.refreshMetadata(watched, true));
        config.assignors().forEach(name -> assignors.add(PartitionAssignor.forName(name)));
        // As in kafka-clients: the cooperative protocol only when every configured assignor supports it.
        this.cooperative = assignors.stream().allMatch(PartitionAssignor::cooperative);
        this.heartbeat = new GroupHeartbeat(this, config, cluster);
    }

    public boolean cooperative() {
        return cooperative;
    }

    /** Replaces the subscribed topics; a change makes the member rejoin at its next poll. */
    public synchronized void subscribe(Collection<String> newTopics) {
        List<String> sorted = List.copyOf(new TreeSet<>(newTopics));
        if (!sorted.equals(topics)) {
            topics = sorted;
            rejoinNeeded = true;
        }
    }

    public synchronized List<String> topics() {
        return topics;
    }

    /** The generation and member id that commits carry. */
    public synchronized GroupMember member() {
        return new GroupMember(generationId, memberId, config.groupInstanceId());
    }

    /** True while the member holds a generation the coordinator gave it and has not been fenced since. */
    public synchronized boolean hasGeneration() {
        return generationId >= 0 && !lost;
    }

    synchronized boolean isStable() {
        return state == State.STABLE;
    }

    /**
     * True from the moment the member starts a (re)join until it has its assignment. A commit is refused meanwhile,
     * as kafka-clients refuses it (RebalanceInProgressException): the generation it would carry is about to change.
     */
    public synchronized boolean rebalanceInProgress() {
        return state != State.STABLE;
    }

    /** A heartbeat on its way, and the generation it was sent for. */
    record SentHeartbeat(int generationId, CompletableFuture<ErrorCode> answer) {
    }

    /**
     * Sends a Heartbeat for the current generation if the member is stable, or returns null. The check and the send
     * are atomic with the state: a rejoin marks the member JOINING under this lock before its JoinGroup goes out on
     * the same coordinator connection, so no heartbeat of the old generation follows that JoinGroup. (One that did
     * would be read by Kafka after the join completed, answered ILLEGAL_GENERATION, and taken for a fencing that
     * loses the member's partitions.) The send is a short socket write; connecting happens before, in
     * {@code coordinator}.
     */
    synchronized SentHeartbeat heartbeatIfStable(BrokerConnection coordinator) {
        if (state != State.STABLE) {
            return null;
        }
        return new SentHeartbeat(generationId, GroupRequests.heartbeat(coordinator, config.groupId(), generationId,
                memberId, config.groupInstanceId()));
    }

    synchronized int knownCoordinator() {
        return coordinator;
    }

    /** The coordinator's node id, found with FindCoordinator when unknown. */
    public int coordinator() {
        synchronized (this) {
            if (coordinator >= 0) {
                return coordinator;
            }
        }
        int found = offsets.findCoordinator(config.groupId());
        synchronized (this) {
            coordinator = found;
            return found;
        }
    }

    /** NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or a lost connection: find the coordinator again. */
    synchronized void markCoordinatorUnknown() {
        coordinator = -1;
    }

    /** The coordinator answers REBALANCE_IN_PROGRESS: rejoin at the next poll. */
    synchronized void requestRejoin() {
        rejoinNeeded = true;
    }

    /** The coordinator no longer knows this member (or its generation): its partitions are lost. */
    synchronized void markLost(boolean forgetMemberId) {
        lost = true;
        rejoinNeeded = true;
        state = State.UNJOINED;
        generationId = -1;
        if (forgetMemberId) {
            memberId = "";
        }
    }

    /** Applies what an error from a group request (heartbeat, commit) says about the membership. */
    public void onGroupError(ErrorCode error) {
        if (error == ErrorCode.REBALANCE_IN_PROGRESS) {
            requestRejoin();
        } else if (error == ErrorCode.UNKNOWN_MEMBER_ID || error == ErrorCode.FENCED_INSTANCE_ID) {
            markLost(true);
        } else if (error == ErrorCode.ILLEGAL_GENERATION) {
            markLost(false);
        } else if (error == ErrorCode.NOT_COORDINATOR || error == ErrorCode.COORDINATOR_NOT_AVAILABLE) {
            markCoordinatorUnknown();
        }
    }

    /** The consumer polled: resets the max.poll.interval.ms clock. */
    public void onPoll(long nowMs) {
        heartbeat.onPoll(nowMs);
    }

    /**
     * Joins or rejoins the group if needed, waiting until {@code deadlineMs} at most. Returns true when the member
     * is stable with an assignment; false when the deadline came first (the rebalance continues at the next call).
     * A deadline already past takes every step that needs no waiting (send JoinGroup, handle an answer that
     * arrived) and returns.
     */
    public boolean ensureActive(long deadlineMs) {
        heartbeat.startIfNeeded();
        if (isStable() && partitionCountWatch.maybeChanged(System.currentTimeMillis())) {
            requestRejoin(); // The leader saw partitions added to a subscribed topic: assign them.
        }
        while (true) {
            boolean lostNow;
            synchronized (this) {
                lostNow = lost;
                lost = false;
                if (state == State.STABLE && !rejoinNeeded) {
                    return true;
                }
            }
            if (lostNow) {
                pendingJoin = null;
                pendingSync = null;
                hooks.onPartitionsLost();
                continue;
            }
            long now = System.currentTimeMillis();
            if (now < backoffUntilMs) {
                if (now >= deadlineMs) {
                    return false;
                }
                pause(Math.min(backoffUntilMs, deadlineMs) - now);
                continue;
            }
            try {
                if (!step(deadlineMs)) {
                    return false;
                }
            } catch (CairnException failed) {
                if (!failed.isRetriable() && !(failed instanceof CairnApiException apiError
                        && isRecoverable(apiError.errorCode()))) {
                    throw failed;
                }
                pendingJoin = null;
                pendingSync = null;
                if (failed instanceof CairnApiException apiError) {
                    onGroupError(apiError.errorCode());
                } else {
                    markCoordinatorUnknown();
                }
                synchronized (this) {
                    rejoinNeeded = true;
                    if (state != State.STABLE) {
                        state = State.UNJOINED;
                    }
                }
                backoffUntilMs = System.currentTimeMillis() + config.retryBackoffMs();
                if (System.currentTimeMillis() >= deadlineMs) {
                    return false;
                }
            }
        }
    }

    private static boolean isRecoverable(ErrorCode error) {
        return error == ErrorCode.REBALANCE_IN_PROGRESS || error == ErrorCode.UNKNOWN_MEMBER_ID
                || error == ErrorCode.ILLEGAL_GENERATION || error == ErrorCode.NOT_COORDINATOR
                || error == ErrorCode.COORDINATOR_NOT_AVAILABLE || error == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /**
     * One step of the join: wait on the pending SyncGroup or JoinGroup, or send a JoinGroup. False when the
     * deadline came before the pending answer.
     */
    private boolean step(long deadlineMs) {
        if (pendingSync != null) {
            Struct response = awaitPending(pendingSync, deadlineMs, "SyncGroup");
            if (response == null) {
                return false;
            }
            pendingSync = null;
            onSyncResponse(response);
            return true;
        }
        if (pendingJoin != null) {
            Struct response = awaitPending(pendingJoin, deadlineMs, "JoinGroup");
            if (response == null) {
                return false;
            }
            pendingJoin = null;
            onJoinResponse(response);
            return true;
        }
        int coordinatorId = coordinator();
        if (!joinPrepared) {
            partitionCountWatch.clear();
            hooks.onJoinPrepare(cooperative);
            joinPrepared = true;
        }
        Struct request;
        synchronized (this) {
            state = State.JOINING;
            rejoinNeeded = false;
            request = joinRequest();
        }
        requestSentMs = System.currentTimeMillis();
        pendingJoin = cluster.coordinatorConnection(coordinatorId).send(ApiKey.JOIN_GROUP, request, true);
        pendingJoin.whenComplete((answer, failure) -> onGroupResponse.run());
        return true;
    }

    /**
     * The response, or null when the deadline came first. The coordinator may hold a JoinGroup for the whole
     * rebalance timeout (max.poll.interval.ms); past that plus request.timeout.ms the connection is closed.
     */
    private Struct awaitPending(CompletableFuture<Struct> pending, long deadlineMs, String what) {
        long limitMs = requestSentMs + config.maxPollIntervalMs() + config.requestTimeoutMs();
        long waitMs = Math.min(deadlineMs, limitMs) - System.currentTimeMillis();
        try {
            return pending.get(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            if (System.currentTimeMillis() >= limitMs) {
                cluster.coordinatorConnection(coordinator()).close();
                throw new CairnException(what + " unanswered past the rebalance and request timeouts", true);
            }
            return null;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException(what + " interrupted", true, interrupted);
        } catch (ExecutionException failed) {
            throw OffsetsClient.unwrap(failed);
        }
    }

    private Struct joinRequest() {
        List<Struct> protocols = new ArrayList<>();
        List<TopicPartition> owned = hooks.ownedPartitions();
        for (PartitionAssignor assignor : assignors) {
            Subscription subscription = new Subscription(topics, assignor.userData(generationId), owned,
                    generationId, null);
            protocols.add(new Struct(JoinGroupRequest.JoinGroupRequestProtocol.SCHEMA)
                    .set(JoinGroupRequest.JoinGroupRequestProtocol.NAME, assignor.name())
                    .set(JoinGroupRequest.JoinGroupRequestProtocol.METADATA,
                            ConsumerProtocolCodec.encodeSubscription(subscription)));
        }
        return new Struct(JoinGroupRequest.SCHEMA)
                .set(JoinGroupRequest.GROUP_ID, config.groupId())
                .set(JoinGroupRequest.SESSION_TIMEOUT_MS, config.sessionTimeoutMs())
                .set(JoinGroupRequest.REBALANCE_TIMEOUT_MS, config.maxPollIntervalMs())
                .set(JoinGroupRequest.MEMBER_ID, memberId)
                .set(JoinGroupRequest.GROUP_INSTANCE_ID, config.groupInstanceId())
                .set(JoinGroupRequest.PROTOCOL_TYPE, PROTOCOL_TYPE)
                .set(JoinGroupRequest.PROTOCOLS, protocols);
    }

    private void onJoinResponse(Struct response) {
        ErrorCode error = ErrorCode.forCode(response.get(JoinGroupResponse.ERROR_CODE));
        if (error == ErrorCode.MEMBER_ID_REQUIRED) {
            // KIP-394: the coordinator names the member id; join again with it at once.
            synchronized (this) {
                memberId = response.get(JoinGroupResponse.MEMBER_ID);
                rejoinNeeded = true;
                state = State.UNJOINED;
            }
            return;
        }
        if (error != ErrorCode.NONE) {
            throw new CairnApiException(error, "JoinGroup for group " + config.groupId());
        }
        String protocol = response.get(JoinGroupResponse.PROTOCOL_NAME);
        int generation = response.get(JoinGroupResponse.GENERATION_ID);
        String member = response.get(JoinGroupResponse.MEMBER_ID);
        List<Struct> assignments = new ArrayList<>();
        if (member.equals(response.get(JoinGroupResponse.LEADER))) {
            assignments = leaderAssignments(protocol, response.get(JoinGroupResponse.MEMBERS));
        }
        Struct request;
        synchronized (this) {
            memberId = member;
            generationId = generation;
            state = State.SYNCING;
            request = new Struct(SyncGroupRequest.SCHEMA)
                    .set(SyncGroupRequest.GROUP_ID, config.groupId())
                    .set(SyncGroupRequest.GENERATION_ID, generation)
                    .set(SyncGroupRequest.MEMBER_ID, member)
                    .set(SyncGroupRequest.GROUP_INSTANCE_ID, config.groupInstanceId())
                    .set(SyncGroupRequest.ASSIGNMENTS, assignments);
        }
        requestSentMs = System.currentTimeMillis();
        pendingSync = cluster.coordinatorConnection(coordinator()).send(ApiKey.SYNC_GROUP, request, true);
        pendingSync.whenComplete((answer, failure) -> onGroupResponse.run());
    }

    /** The leader's job: run the chosen assignor over every member's subscription. */
    private List<Struct> leaderAssignments(String protocol, List<Struct> members) {
        PartitionAssignor assignor = assignors.stream().filter(a -> a.name().equals(protocol)).findFirst()
                .orElseThrow(() -> new CairnException("the coordinator chose protocol '" + protocol
                        + "', which this member did not offer", false));
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        TreeSet<String> allTopics = new TreeSet<>();
        for (Struct member : members) {
            Subscription subscription = ConsumerProtocolCodec.decodeSubscription(
                    member.get(JoinGroupResponse.JoinGroupResponseMember.METADATA));
            subscriptions.put(member.get(JoinGroupResponse.JoinGroupResponseMember.MEMBER_ID), subscription);
            allTopics.addAll(subscription.topics());
        }
        ClusterMetadata metadata = cluster.refreshMetadata(allTopics, true);
        Map<String, Integer> partitionCounts = PartitionCountWatch.partitionCounts(metadata, allTopics);
        partitionCountWatch.onAssigned(allTopics, partitionCounts, System.currentTimeMillis());
        List<Struct> assignments = new ArrayList<>();
        assignor.assign(partitionCounts, subscriptions).forEach((member, partitions) -> assignments.add(
                new Struct(SyncGroupRequest.SyncGroupRequestAssignment.SCHEMA)
                        .set(SyncGroupRequest.SyncGroupRequestAssignment.MEMBER_ID, member)
                        .set(SyncGroupRequest.SyncGroupRequestAssignment.ASSIGNMENT,
                                ConsumerProtocolCodec.encodeAssignment(new Assignment(partitions, null)))));
        return assignments;
    }

    private void onSyncResponse(Struct response) {
        ErrorCode error = ErrorCode.forCode(response.get(SyncGroupResponse.ERROR_CODE));
        if (error != ErrorCode.NONE) {
            throw new CairnApiException(error, "SyncGroup for group " + config.groupId());
        }
        Assignment assignment = ConsumerProtocolCodec.decodeAssignment(response.get(SyncGroupResponse.ASSIGNMENT));
        List<TopicPartition> mine = new ArrayList<>();
        for (TopicPartition partition : assignment.partitions()) {
            if (topics.contains(partition.topic())) {
                mine.add(partition);
            }
        }
        synchronized (this) {
            state = State.STABLE;
        }
        heartbeat.onStable(System.currentTimeMillis());
        joinPrepared = false;
        if (hooks.onJoinComplete(mine, cooperative)) {
            synchronized (this) {
                rejoinNeeded = true;
            }
        }
    }

    private static void pause(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(Math.max(1, ms));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException("interrupted during a group retry backoff", true, interrupted);
        }
    }

    /** Sends LeaveGroup (best effort, bounded by request.timeout.ms) so the group rebalances without waiting. */
    public void leave() {
        String leaving;
        int coordinatorId;
        synchronized (this) {
            leaving = memberId;
            coordinatorId = coordinator;
            state = State.UNJOINED;
            generationId = -1;
            memberId = "";
        }
        if (leaving.isEmpty() || coordinatorId < 0 || config.groupInstanceId() != null) {
            return; // A static member keeps its place until its session times out, as in kafka-clients.
        }
        try {
            GroupRequests.leave(cluster, coordinatorId, config.groupId(), leaving);
        } catch (CairnException ignored) {
            // Best effort: without LeaveGroup the coordinator drops the member when its session times out.
        }
    }

    @Override
    public void close() {
        heartbeat.close();
    }
}
