package dev.cairn.broker.group;

import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic group coordinator of one broker: JoinGroup, SyncGroup, Heartbeat and LeaveGroup with generations,
 * session and rebalance timeouts, protocol selection and static membership, following Kafka's classic group
 * semantics (KIP-62 rebalance timeout, KIP-134 initial rebalance delay, KIP-345 static membership, KIP-394
 * MEMBER_ID_REQUIRED).
 *
 * <p>It reads no clock: every call carries the caller's {@code nowMs}, and {@link #tick(long)}, called by a timer,
 * enforces session expiry, rebalance and sync deadlines. Member ids come from an injected id source. All state is
 * guarded by one lock; parked JoinGroup and SyncGroup responses are completed after the lock is released, so no
 * response continuation runs inside the coordinator.
 *
 * <p>The state is this broker's alone and lives in memory. When a group's coordinator moves to another broker (the
 * set of brokers changed) or this broker restarts, the new coordinator starts the group empty and its members
 * rejoin: their heartbeats get UNKNOWN_MEMBER_ID there, and a group unloaded here answers its parked requests with
 * NOT_COORDINATOR. Committed offsets are not affected; they live in the partitions' Raft groups.
 */
public final class GroupCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    /** The protocol type of groups of Kafka consumers, whose member metadata lists the subscribed topics. */
    private static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private final GroupConfig config;
    private final Supplier<String> idSource;
    private final Predicate<String> ownsGroup;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private final Map<String, Group> groups = new LinkedHashMap<>();
    /** Futures to complete once the lock is released. Guarded by {@link #lock}. */
    private final List<Runnable> completions = new ArrayList<>();

    /**
     * @param config the {@code group.*} settings
     * @param idSource unique strings for new member ids (random UUIDs in the broker, a counter in tests)
     * @param ownsGroup whether this broker is currently the coordinator of a group id
     */
    public GroupCoordinator(GroupConfig config, Supplier<String> idSource, Predicate<String> ownsGroup) {
        this.config = config;
        this.idSource = idSource;
        this.ownsGroup = ownsGroup;
    }

    /** JoinGroup: completes at once with an error or a known answer, or when the rebalance completes. */
    public CompletableFuture<JoinResult> join(JoinRequest request, long nowMs) {
        CompletableFuture<JoinResult> future = new CompletableFuture<>();
        run(() -> onJoin(request, future, nowMs));
        return future;
    }

    /**
     * SyncGroup: the leader hands in the assignments ({@code assignments} is empty for followers). Completes with
     * the member's assignment once the leader's arrived, or with an error.
     */
    public CompletableFuture<SyncResult> sync(String groupId, int generationId, String memberId,
            String groupInstanceId, Map<String, byte[]> assignments, long nowMs) {
        CompletableFuture<SyncResult> future = new CompletableFuture<>();
        run(() -> onSync(groupId, generationId, memberId, groupInstanceId, assignments, future, nowMs));
        return future;
    }

    /** Heartbeat: keeps the member's session alive and tells it whether it must rejoin. */
    public ErrorCode heartbeat(String groupId, int generationId, String memberId, String groupInstanceId,
            long nowMs) {
        return call(() -> onHeartbeat(groupId, generationId, memberId, groupInstanceId, nowMs));
    }

    /** LeaveGroup (v0-2, one member): removes the member at once and rebalances the others. */
    public ErrorCode leave(String groupId, String memberId, long nowMs) {
        return call(() -> onLeave(groupId, memberId, nowMs));
    }

    /**
     * Whether an OffsetCommit with this generation and member may commit, as Kafka's classic group decides it:
     * NONE when it may; a commit without generation and member (standalone consumers, Admin) only while the group
     * has no members. The caller has already checked the group id and that this broker coordinates it.
     */
    public ErrorCode validateOffsetCommit(String groupId, String memberId, String groupInstanceId,
            int generationId) {
        return call(() -> onValidateOffsetCommit(groupId, memberId, groupInstanceId, generationId));
    }

    /** Whether this broker coordinates {@code groupId} now. */
    public boolean ownsGroup(String groupId) {
        return ownsGroup.test(groupId);
    }

    /** Every group this broker coordinates, with its protocol type and state. */
    public List<GroupListing> listGroups() {
        return call(() -> {
            List<GroupListing> listings = new ArrayList<>();
            for (Group group : groups.values()) {
                listings.add(new GroupListing(group.groupId(), orEmpty(group.protocolType()), group.state()));
            }
            return listings;
        });
    }

    /** The group as DescribeGroups shows it; a group this broker does not know is Dead, as in Kafka. */
    public GroupDescription describe(String groupId) {
        return call(() -> {
            Group group = groups.get(groupId);
            if (group == null) {
                return new GroupDescription(groupId, GroupState.DEAD, "", "", List.of());
            }
            boolean stable = group.state() == GroupState.STABLE;
            List<GroupDescription.MemberDescription> members = new ArrayList<>();
            for (Member member : group.members()) {
                members.add(new GroupDescription.MemberDescription(member.memberId(), member.groupInstanceId(),
                        orEmpty(member.clientId()), orEmpty(member.clientHost()),
                        stable ? member.metadata(group.protocolName()) : SyncResult.NO_ASSIGNMENT,
                        stable ? member.assignment() : SyncResult.NO_ASSIGNMENT));
            }
            return new GroupDescription(groupId, group.state(), orEmpty(group.protocolType()),
                    stable ? group.protocolName() : "", members);
        });
    }

    /**
     * DeleteGroups, this coordinator's part: a group with members (or members joining) is NON_EMPTY_GROUP and
     * stays; otherwise it is forgotten here (its committed offsets, in the partitions, are the caller's to delete).
     */
    public GroupDeletion deleteGroup(String groupId) {
        return call(() -> {
            Group group = groups.get(groupId);
            if (group == null) {
                return GroupDeletion.NOT_LOADED;
            }
            if (group.hasMembers() || group.pendingCount() > 0) {
                return GroupDeletion.NOT_EMPTY;
            }
            group.state(GroupState.DEAD);
            groups.remove(groupId);
            return GroupDeletion.REMOVED;
        });
    }

    /** What {@link #deleteGroup} did. */
    public enum GroupDeletion {
        /** This coordinator holds no state for the group (it may still have committed offsets). */
        NOT_LOADED,
        /** The group was empty and is forgotten. */
        REMOVED,
        /** The group has members: NON_EMPTY_GROUP. */
        NOT_EMPTY
    }

    /**
     * OffsetDelete, this coordinator's part, as Kafka's classic groups decide it: offsets of an empty (or unknown)
     * group may all go; a {@code consumer} group with members keeps the offsets of the topics its members subscribe
     * to (GROUP_SUBSCRIBED_TO_TOPIC), and those of other topics may go; a group of another protocol type with
     * members is NON_EMPTY_GROUP as a whole.
     *
     * @return NONE, GROUP_SUBSCRIBED_TO_TOPIC or NON_EMPTY_GROUP for {@code topic}
     */
    public ErrorCode offsetDeletion(String groupId, String topic) {
        return call(() -> {
            Group group = groups.get(groupId);
            if (group == null || (!group.hasMembers() && group.pendingCount() == 0)) {
                return ErrorCode.NONE;
            }
            if (!CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
                return ErrorCode.NON_EMPTY_GROUP;
            }
            for (Member member : group.members()) {
                for (Protocol protocol : member.protocols()) {
                    Optional<Set<String>> topics = ConsumerSubscription.topics(protocol.metadata());
                    if (topics.isEmpty() || topics.get().contains(topic)) {
                        return ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
                    }
                }
            }
            return ErrorCode.NONE;
        });
    }

    /** Whether this coordinator holds state for the group now (members or not). */
    public boolean isLoaded(String groupId) {
        return call(() -> groups.containsKey(groupId));
    }

    /**
     * Enforces every deadline that has passed by {@code nowMs}: pending member ids and sessions expire, a
     * rebalance completes when its time is up (removing dynamic members that did not rejoin), members that did
     * not sync in time are removed, and groups this broker no longer coordinates are unloaded.
     */
    public void tick(long nowMs) {
        run(() -> {
            for (Group group : new ArrayList<>(groups.values())) {
                if (!ownsGroup.test(group.groupId())) {
                    unload(group);
                    continue;
                }
                expirePendingMembers(group, nowMs);
                expireSessions(group, nowMs);
                if (group.state() == GroupState.PREPARING_REBALANCE && nowMs >= group.joinDeadlineMs()) {
                    onJoinDeadline(group, nowMs);
                }
                if ((group.state() == GroupState.COMPLETING_REBALANCE || group.state() == GroupState.STABLE)
                        && !group.pendingSync().isEmpty() && nowMs >= group.syncDeadlineMs()) {
                    removeUnsyncedMembers(group, nowMs);
                }
            }
        });
    }

    /** Members and pending members in all groups. */
    public int memberCount() {
        return call(this::membersOnBroker);
    }

    // ---- JoinGroup ----

    private void onJoin(JoinRequest request, CompletableFuture<JoinResult> future, long nowMs) {
        ErrorCode error = groupError(request.groupId());
        if (error == null && (request.sessionTimeoutMs() < config.minSessionTimeoutMs()
                || request.sessionTimeoutMs() > config.maxSessionTimeoutMs())) {
            error = ErrorCode.INVALID_SESSION_TIMEOUT;
        }
        if (error != null) {
            answer(future, JoinResult.error(error, request.memberId()));
            return;
        }
        Group group = groups.get(request.groupId());
        boolean newMember = request.memberId().isEmpty();
        if (group == null) {
            if (!newMember) {
                answer(future, JoinResult.error(ErrorCode.UNKNOWN_MEMBER_ID, request.memberId()));
                return;
            }
            group = createGroup(request.groupId());
            if (group == null) {
                answer(future, JoinResult.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, request.memberId()));
                return;
            }
        }
        if (newMember) {
            joinNewMember(group, request, future, nowMs);
        } else {
            joinKnownMember(group, request, future, nowMs);
        }
    }

    private void joinNewMember(Group group, JoinRequest request, CompletableFuture<JoinResult> future,
            long nowMs) {
        String instanceId = request.groupInstanceId();
        if (instanceId != null && group.staticMemberId(instanceId) != null) {
            rejoinStaticMember(group, group.member(group.staticMemberId(instanceId)), request, future, nowMs);
            return;
        }
        if (!group.supports(request.protocolType(), request.protocols())) {
            answer(future, JoinResult.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        if (group.memberCount() + group.pendingCount() >= config.maxSize()) {
            answer(future, JoinResult.error(ErrorCode.GROUP_MAX_SIZE_REACHED, ""));
            return;
        }
        if (membersOnBroker() >= Limits.GROUP_MEMBERS_PER_BROKER_MAX) {
            LOG.warn("Group {}: refusing a new member, this broker already has {} group members "
                    + "(GROUP_MEMBERS_PER_BROKER_MAX)", group.groupId(), Limits.GROUP_MEMBERS_PER_BROKER_MAX);
            answer(future, JoinResult.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, ""));
            return;
        }
        String memberId = newMemberId(request);
        if (instanceId == null && request.requireKnownMemberId()) {
            // KIP-394: the member learns its id first and rejoins with it, so a client whose join response is
            // lost does not leave an orphan member behind; the pending id expires with the session timeout.
            group.pendingMembers().put(memberId, nowMs + request.sessionTimeoutMs());
            answer(future, JoinResult.error(ErrorCode.MEMBER_ID_REQUIRED, memberId));
            return;
        }
        addMemberAndRebalance(group, memberId, request, future, nowMs);
    }

    private void joinKnownMember(Group group, JoinRequest request, CompletableFuture<JoinResult> future,
            long nowMs) {
        String memberId = request.memberId();
        if (group.pendingMembers().containsKey(memberId)) {
            if (!group.supports(request.protocolType(), request.protocols())) {
                answer(future, JoinResult.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            addMemberAndRebalance(group, memberId, request, future, nowMs);
            return;
        }
        ErrorCode memberError = memberError(group, memberId, request.groupInstanceId());
        if (memberError != null) {
            answer(future, JoinResult.error(memberError, memberId));
            return;
        }
        Member member = group.member(memberId);
        if (!group.supportsRejoin(member, request.protocolType(), request.protocols())) {
            answer(future, JoinResult.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        member.heartbeat(nowMs);
        boolean sameProtocols = member.sameProtocols(request.protocols());
        switch (group.state()) {
            case PREPARING_REBALANCE:
                updateAndPark(member, request, future);
                maybeCompleteJoin(group, nowMs);
                break;
            case COMPLETING_REBALANCE:
            case STABLE:
                // A follower that rejoins unchanged (its join response was lost) gets the current generation
                // again; the leader or a changed subscription starts a new rebalance.
                boolean leaderInStable = group.state() == GroupState.STABLE && group.isLeader(memberId);
                if (sameProtocols && !leaderInStable) {
                    answer(future, joinResult(group, member));
                } else {
                    updateAndPark(member, request, future);
                    prepareRebalance(group, nowMs, "member " + memberId + " rejoined");
                    maybeCompleteJoin(group, nowMs);
                }
                break;
            default:
                answer(future, JoinResult.error(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
                break;
        }
    }

    /**
     * A static member whose instance is known joins with an empty member id (the process restarted): it takes over
     * the instance's place and assignment under a new member id, and the old incarnation is fenced. In a Stable
     * group whose protocol would not change, this needs no rebalance (KIP-345).
     */
    private void rejoinStaticMember(Group group, Member member, JoinRequest request,
            CompletableFuture<JoinResult> future, long nowMs) {
        if (!group.supportsRejoin(member, request.protocolType(), request.protocols())) {
            answer(future, JoinResult.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        String oldMemberId = member.memberId();
        String newMemberId = newMemberId(request);
        answer(member.takeJoin(), JoinResult.error(ErrorCode.FENCED_INSTANCE_ID, oldMemberId));
        answer(member.takeSync(), SyncResult.error(ErrorCode.FENCED_INSTANCE_ID));
        group.replaceMemberId(member, newMemberId);
        member.update(request, rebalanceTimeoutMs(request));
        member.heartbeat(nowMs);
        LOG.info("Group {}: static member {} rejoined, member id {} replaces {}", group.groupId(),
                request.groupInstanceId(), newMemberId, oldMemberId);
        switch (group.state()) {
            case STABLE:
                if (group.selectProtocol().equals(group.protocolName())) {
                    // Members are sent only to a leader that may skip the assignment (JoinGroup v9+), which
                    // Cairn does not serve; the leader then syncs an empty assignment and keeps the stored one.
                    answer(future, new JoinResult(ErrorCode.NONE, group.generationId(), group.protocolName(),
                            group.leaderId(), newMemberId, List.of()));
                } else {
                    member.parkJoin(future);
                    prepareRebalance(group, nowMs, "static member " + newMemberId + " changed protocols");
                    maybeCompleteJoin(group, nowMs);
                }
                break;
            case COMPLETING_REBALANCE:
                // The leader may already have been sent the old member id; rebalance so the ids agree.
                member.parkJoin(future);
                prepareRebalance(group, nowMs, "static member " + newMemberId + " rejoined during a rebalance");
                maybeCompleteJoin(group, nowMs);
                break;
            default:
                member.parkJoin(future);
                maybeCompleteJoin(group, nowMs);
                break;
        }
    }

    private void addMemberAndRebalance(Group group, String memberId, JoinRequest request,
            CompletableFuture<JoinResult> future, long nowMs) {
        group.pendingMembers().remove(memberId);
        Member member = new Member(memberId, request, rebalanceTimeoutMs(request));
        member.heartbeat(nowMs);
        member.parkJoin(future);
        group.add(member);
        if (group.state() != GroupState.PREPARING_REBALANCE) {
            prepareRebalance(group, nowMs, "member " + memberId + " joined");
        }
        maybeCompleteJoin(group, nowMs);
    }

    private void updateAndPark(Member member, JoinRequest request, CompletableFuture<JoinResult> future) {
        member.update(request, rebalanceTimeoutMs(request));
        // A member has one join in flight; an older one (a client retry) is answered so its connection moves on.
        answer(member.parkJoin(future), JoinResult.error(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId()));
    }

    private static int rebalanceTimeoutMs(JoinRequest request) {
        // JoinGroup v0 has no rebalance timeout; Kafka uses the session timeout for it.
        int timeoutMs = request.rebalanceTimeoutMs() < 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs();
        return Math.min(timeoutMs, Limits.GROUP_REBALANCE_TIMEOUT_MS_MAX);
    }

    private String newMemberId(JoinRequest request) {
        String prefix = request.groupInstanceId() != null ? request.groupInstanceId() : orEmpty(request.clientId());
        return prefix + "-" + idSource.get();
    }

    private static JoinResult joinResult(Group group, Member member) {
        List<JoinResult.JoinedMember> members = new ArrayList<>();
        if (group.isLeader(member.memberId())) {
            for (Member m : group.members()) {
                members.add(new JoinResult.JoinedMember(m.memberId(), m.groupInstanceId(),
                        m.metadata(group.protocolName())));
            }
        }
        return new JoinResult(ErrorCode.NONE, group.generationId(), group.protocolName(), group.leaderId(),
                member.memberId(), members);
    }

    // ---- rebalance ----

    private void prepareRebalance(Group group, long nowMs, String reason) {
        if (group.state() == GroupState.COMPLETING_REBALANCE) {
            for (Member member : group.members()) {
                answer(member.takeSync(), SyncResult.error(ErrorCode.REBALANCE_IN_PROGRESS));
            }
        }
        group.pendingSync().clear();
        if (group.state() == GroupState.EMPTY && config.initialRebalanceDelayMs() > 0) {
            // KIP-134: the first members of an empty group wait a little for the others, so a group that starts
            // all at once rebalances once instead of once per member.
            long delayMs = Math.min(config.initialRebalanceDelayMs(), group.rebalanceTimeoutMs());
            group.startInitialDelay(Math.max(0, group.rebalanceTimeoutMs() - delayMs));
            group.joinDeadlineMs(nowMs + delayMs);
        } else {
            group.endInitialDelay();
            group.joinDeadlineMs(nowMs + group.rebalanceTimeoutMs());
        }
        LOG.info("Group {}: preparing rebalance from generation {} ({})", group.groupId(), group.generationId(),
                reason);
        group.state(GroupState.PREPARING_REBALANCE);
    }

    private void maybeCompleteJoin(Group group, long nowMs) {
        if (group.state() == GroupState.PREPARING_REBALANCE && !group.initialDelayedJoin()
                && group.allMembersJoined()) {
            completeJoin(group, nowMs);
        }
    }

    private void onJoinDeadline(Group group, long nowMs) {
        if (group.initialDelayedJoin()) {
            if (group.takeNewMemberAdded() && group.initialDelayRemainingMs() > 0) {
                long delayMs = Math.min(config.initialRebalanceDelayMs(), group.initialDelayRemainingMs());
                group.consumeInitialDelay(delayMs);
                group.joinDeadlineMs(nowMs + delayMs);
                return;
            }
            group.endInitialDelay();
        }
        completeJoin(group, nowMs);
    }

    /**
     * Ends PreparingRebalance: dynamic members that did not rejoin are removed, the next generation starts, and
     * every parked JoinGroup is answered, the leader with the members and their metadata.
     */
    private void completeJoin(Group group, long nowMs) {
        boolean anyJoined = false;
        for (Member member : group.members()) {
            if (member.awaitingJoin()) {
                anyJoined = true;
            } else if (!member.isStatic()) {
                LOG.info("Group {}: removing member {}, it did not rejoin within the rebalance timeout",
                        group.groupId(), member.memberId());
                group.remove(member);
            }
        }
        if (group.hasMembers() && !anyJoined) {
            // Only static members that have not rejoined are left. Kafka waits for them too, until their
            // sessions expire; the next attempt is one rebalance timeout away.
            group.joinDeadlineMs(nowMs + group.rebalanceTimeoutMs());
            return;
        }
        Member leader = group.leaderId() == null ? null : group.member(group.leaderId());
        if (leader == null || !leader.awaitingJoin()) {
            for (Member member : group.members()) {
                if (member.awaitingJoin()) {
                    group.leaderId(member.memberId());
                    break;
                }
            }
        }
        group.nextGeneration();
        group.syncDeadlineMs(nowMs + group.rebalanceTimeoutMs());
        LOG.info("Group {}: generation {} with {} members, protocol {}, state {}", group.groupId(),
                group.generationId(), group.memberCount(), group.protocolName(), group.state().displayName());
        for (Member member : group.members()) {
            member.heartbeat(nowMs);
            answer(member.takeJoin(), joinResult(group, member));
        }
    }

    // ---- SyncGroup, Heartbeat, LeaveGroup ----

    private void onSync(String groupId, int generationId, String memberId, String groupInstanceId,
            Map<String, byte[]> assignments, CompletableFuture<SyncResult> future, long nowMs) {
        ErrorCode error = groupError(groupId);
        Group group = error == null ? groups.get(groupId) : null;
        if (error == null && group == null) {
            error = ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (error == null) {
            error = memberError(group, memberId, groupInstanceId);
        }
        if (error == null && generationId != group.generationId()) {
            error = ErrorCode.ILLEGAL_GENERATION;
        }
        if (error == null && group.state() == GroupState.PREPARING_REBALANCE) {
            error = ErrorCode.REBALANCE_IN_PROGRESS;
        }
        if (error != null) {
            answer(future, SyncResult.error(error));
            return;
        }
        Member member = group.member(memberId);
        member.heartbeat(nowMs);
        group.pendingSync().remove(memberId);
        if (group.state() == GroupState.STABLE) {
            answer(future, new SyncResult(ErrorCode.NONE, member.assignment()));
            return;
        }
        answer(member.parkSync(future), SyncResult.error(ErrorCode.REBALANCE_IN_PROGRESS));
        if (group.isLeader(memberId)) {
            for (Member m : group.members()) {
                m.assignment(assignments.getOrDefault(m.memberId(), SyncResult.NO_ASSIGNMENT));
            }
            group.state(GroupState.STABLE);
            LOG.info("Group {}: generation {} is stable", groupId, group.generationId());
            for (Member m : group.members()) {
                answer(m.takeSync(), new SyncResult(ErrorCode.NONE, m.assignment()));
            }
        }
    }

    private ErrorCode onHeartbeat(String groupId, int generationId, String memberId, String groupInstanceId,
            long nowMs) {
        ErrorCode error = groupError(groupId);
        if (error != null) {
            return error;
        }
        Group group = groups.get(groupId);
        if (group == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        error = memberError(group, memberId, groupInstanceId);
        if (error != null) {
            return error;
        }
        if (generationId != group.generationId()) {
            return ErrorCode.ILLEGAL_GENERATION;
        }
        group.member(memberId).heartbeat(nowMs);
        return group.state() == GroupState.PREPARING_REBALANCE ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
    }

    private ErrorCode onLeave(String groupId, String memberId, long nowMs) {
        ErrorCode error = groupError(groupId);
        if (error != null) {
            return error;
        }
        Group group = groups.get(groupId);
        if (group == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (group.pendingMembers().remove(memberId) != null) {
            maybeCompleteJoin(group, nowMs);
            return ErrorCode.NONE;
        }
        Member member = group.member(memberId);
        if (member == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        removeMember(group, member, nowMs, "left the group");
        return ErrorCode.NONE;
    }

    private ErrorCode onValidateOffsetCommit(String groupId, String memberId, String groupInstanceId,
            int generationId) {
        Group group = groups.get(groupId);
        boolean memberless = generationId < 0 && memberId.isEmpty() && groupInstanceId == null;
        if (group == null) {
            // No live group: a standalone consumer or Admin may commit; a generation can only be stale.
            return generationId < 0 ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
        }
        if (generationId < 0 && group.state() == GroupState.EMPTY) {
            return ErrorCode.NONE;
        }
        if (!memberless) {
            ErrorCode error = memberError(group, memberId, groupInstanceId);
            if (error != null) {
                return error;
            }
            if (generationId != group.generationId()) {
                return ErrorCode.ILLEGAL_GENERATION;
            }
        } else if (group.state() != GroupState.EMPTY) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        // The member holds the new generation but not yet its assignment: it must not commit partitions it
        // may be about to lose, and REBALANCE_IN_PROGRESS makes it finish the rebalance first.
        return group.state() == GroupState.COMPLETING_REBALANCE ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
    }

    // ---- expiry ----

    private void expirePendingMembers(Group group, long nowMs) {
        boolean expired = group.pendingMembers().values().removeIf(deadlineMs -> nowMs >= deadlineMs);
        if (expired) {
            maybeCompleteJoin(group, nowMs);
        }
    }

    private void expireSessions(Group group, long nowMs) {
        for (Member member : group.members()) {
            // A member with a parked JoinGroup or SyncGroup is waiting on the coordinator, not silent.
            boolean stillMember = group.member(member.memberId()) == member;
            if (stillMember && !member.awaitingJoin() && !member.awaitingSync()
                    && nowMs >= member.sessionDeadlineMs()) {
                removeMember(group, member, nowMs, "its session timed out");
            }
        }
    }

    private void removeUnsyncedMembers(Group group, long nowMs) {
        for (String memberId : new ArrayList<>(group.pendingSync())) {
            Member member = group.member(memberId);
            if (member != null) {
                removeMember(group, member, nowMs, "it did not send SyncGroup within the rebalance timeout");
            }
        }
        group.pendingSync().clear();
    }

    private void removeMember(Group group, Member member, long nowMs, String reason) {
        LOG.info("Group {}: removing member {} ({})", group.groupId(), member.memberId(), reason);
        answer(member.takeJoin(), JoinResult.error(ErrorCode.UNKNOWN_MEMBER_ID, member.memberId()));
        answer(member.takeSync(), SyncResult.error(ErrorCode.UNKNOWN_MEMBER_ID));
        group.remove(member);
        if (group.state() == GroupState.STABLE || group.state() == GroupState.COMPLETING_REBALANCE) {
            prepareRebalance(group, nowMs, "member " + member.memberId() + " removed");
        }
        maybeCompleteJoin(group, nowMs);
    }

    /** Drops a group this broker no longer coordinates; its parked requests go to look for the new coordinator. */
    private void unload(Group group) {
        LOG.info("Group {}: unloading, this broker no longer coordinates it", group.groupId());
        for (Member member : group.members()) {
            answer(member.takeJoin(), JoinResult.error(ErrorCode.NOT_COORDINATOR, member.memberId()));
            answer(member.takeSync(), SyncResult.error(ErrorCode.NOT_COORDINATOR));
        }
        group.state(GroupState.DEAD);
        groups.remove(group.groupId());
    }

    // ---- helpers ----

    private ErrorCode groupError(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        return ownsGroup.test(groupId) ? null : ErrorCode.NOT_COORDINATOR;
    }

    /** Kafka's member check: a static instance held by another member id is fenced; an unknown id is unknown. */
    private static ErrorCode memberError(Group group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String existing = group.staticMemberId(groupInstanceId);
            if (existing == null) {
                return ErrorCode.UNKNOWN_MEMBER_ID;
            }
            if (!existing.equals(memberId)) {
                return ErrorCode.FENCED_INSTANCE_ID;
            }
        }
        return group.member(memberId) == null ? ErrorCode.UNKNOWN_MEMBER_ID : null;
    }

    private Group createGroup(String groupId) {
        if (groups.size() >= Limits.GROUPS_PER_BROKER_MAX) {
            // Memberless groups hold nothing a client needs (offsets live in the partitions): make room.
            Group evictable = null;
            for (Group group : groups.values()) {
                if (group.state() == GroupState.EMPTY && group.pendingCount() == 0) {
                    evictable = group;
                    break;
                }
            }
            if (evictable == null) {
                LOG.warn("Group {}: refusing a new group, this broker coordinates {} groups with members "
                        + "(GROUPS_PER_BROKER_MAX)", groupId, Limits.GROUPS_PER_BROKER_MAX);
                return null;
            }
            groups.remove(evictable.groupId());
        }
        Group group = new Group(groupId);
        groups.put(groupId, group);
        return group;
    }

    private int membersOnBroker() {
        int count = 0;
        for (Group group : groups.values()) {
            count += group.memberCount() + group.pendingCount();
        }
        return count;
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private <T> void answer(CompletableFuture<T> future, T value) {
        if (future != null) {
            completions.add(() -> future.complete(value));
        }
    }

    private void run(Runnable action) {
        call(() -> {
            action.run();
            return null;
        });
    }

    private <T> T call(Supplier<T> action) {
        T result;
        List<Runnable> toComplete;
        synchronized (lock) {
            try {
                result = action.get();
            } finally {
                toComplete = new ArrayList<>(completions);
                completions.clear();
            }
        }
        for (Runnable completion : toComplete) {
            completion.run();
        }
        return result;
    }
}
