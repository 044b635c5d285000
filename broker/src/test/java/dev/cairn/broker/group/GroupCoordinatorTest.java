package dev.cairn.broker.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The classic group coordinator on a fake clock (every call carries its time, {@code tick} stands in for the
 * timer). Facts checked against Kafka's classic group semantics: KIP-62 (rebalance timeout), KIP-134 (initial
 * rebalance delay), KIP-345 (static membership), KIP-394 (MEMBER_ID_REQUIRED), and ClassicGroup's offset-commit
 * validation. A future that should be complete is joined; the class timeout (on a separate thread, since
 * {@code join} ignores interrupts) bounds a test whose future never completes.
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GroupCoordinatorTest {
    private static final String GROUP = "orders";
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    private static final List<Protocol> RANGE = List.of(protocol("range", "sub-a"));

    private final AtomicInteger ids = new AtomicInteger();
    private final Set<String> notOwned = new HashSet<>();
    private long nowMs = 1_000_000;
    private GroupCoordinator coordinator = coordinator(0, 100);

    private GroupCoordinator coordinator(int initialDelayMs, int maxSize) {
        return new GroupCoordinator(new GroupConfig(6_000, 60_000, initialDelayMs, maxSize),
                () -> Integer.toString(ids.incrementAndGet()), groupId -> !notOwned.contains(groupId));
    }

    private static Protocol protocol(String name, String metadata) {
        return new Protocol(name, metadata.getBytes(StandardCharsets.UTF_8));
    }

    private static JoinRequest request(String memberId, String instanceId, List<Protocol> protocols,
            boolean requireKnownMemberId) {
        return new JoinRequest(GROUP, memberId, instanceId, "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
                "consumer", protocols, requireKnownMemberId);
    }

    private CompletableFuture<JoinResult> join(String memberId) {
        return coordinator.join(request(memberId, null, RANGE, true), nowMs);
    }

    /** A new dynamic member's two-step join (KIP-394); returns the parked (or completed) second join. */
    private CompletableFuture<JoinResult> joinNew() {
        JoinResult first = join("").join();
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED, first.error());
        assertTrue(first.memberId().startsWith("client-"), first.memberId());
        return join(first.memberId());
    }

    private CompletableFuture<SyncResult> sync(JoinResult joined, Map<String, byte[]> assignments) {
        return coordinator.sync(GROUP, joined.generationId(), joined.memberId(), null, assignments, nowMs);
    }

    private ErrorCode heartbeat(JoinResult joined) {
        return coordinator.heartbeat(GROUP, joined.generationId(), joined.memberId(), null, nowMs);
    }

    private GroupState state() {
        return coordinator.describe(GROUP).state();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Two members through join and sync to a Stable generation 1; returns {leader, follower}. */
    private JoinResult[] stableGroupOfTwo() {
        CompletableFuture<JoinResult> first = joinNew();
        // With no initial delay the first member completes a generation alone at once.
        JoinResult alone = first.join();
        assertEquals(1, alone.generationId());
        CompletableFuture<JoinResult> second = joinNew();
        assertFalse(second.isDone(), "the rebalance waits for the first member to rejoin");
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, heartbeat(alone));
        CompletableFuture<JoinResult> firstAgain = join(alone.memberId());
        JoinResult leader = firstAgain.join();
        JoinResult follower = second.join();
        assertEquals(2, leader.generationId());
        assertEquals(leader.memberId(), leader.leaderId());
        assertEquals(2, leader.members().size());
        assertEquals(0, follower.members().size());
        CompletableFuture<SyncResult> followerSync = sync(follower, Map.of());
        assertFalse(followerSync.isDone(), "a follower's SyncGroup waits for the leader's assignment");
        SyncResult leaderSync = sync(leader, Map.of(leader.memberId(), bytes("p0"), follower.memberId(),
                bytes("p1"))).join();
        assertArrayEquals(bytes("p0"), leaderSync.assignment());
        assertArrayEquals(bytes("p1"), followerSync.join().assignment());
        assertEquals(GroupState.STABLE, state());
        return new JoinResult[] {leader, follower};
    }

    @Test
    void joinSyncHeartbeatLeaveRoundTrip() {
        JoinResult[] members = stableGroupOfTwo();
        assertEquals(ErrorCode.NONE, heartbeat(members[0]));
        assertEquals(ErrorCode.NONE, heartbeat(members[1]));
        assertEquals(ErrorCode.NONE, coordinator.leave(GROUP, members[1].memberId(), nowMs));
        assertEquals(GroupState.PREPARING_REBALANCE, state());
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, heartbeat(members[0]));
        JoinResult alone = join(members[0].memberId()).join();
        assertEquals(3, alone.generationId());
        assertEquals(List.of(members[0].memberId()),
                alone.members().stream().map(JoinResult.JoinedMember::memberId).toList());
        assertEquals(ErrorCode.NONE, coordinator.leave(GROUP, members[0].memberId(), nowMs));
        assertEquals(GroupState.EMPTY, state(), "the last member leaving empties the group");
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, coordinator.leave(GROUP, members[0].memberId(), nowMs));
    }

    @Test
    void memberIdRequiredOnlyFromV4AndNotForStaticMembers() {
        JoinResult v3 = coordinator.join(request("", null, RANGE, false), nowMs).join();
        assertEquals(ErrorCode.NONE, v3.error(), "below v4 the coordinator adds the member at once");
        assertEquals(1, v3.generationId());
        JoinResult v4 = coordinator.join(request("", null, RANGE, true), nowMs).join();
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED, v4.error());
        assertEquals(JoinResult.NO_GENERATION, v4.generationId());
        CompletableFuture<JoinResult> staticJoin = coordinator.join(request("", "instance-1", RANGE, true), nowMs);
        assertFalse(staticJoin.isDone(), "a static member joins without MEMBER_ID_REQUIRED and waits");
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, join("never-issued").join().error());
    }

    @Test
    void pendingMemberIdExpiresAfterTheSessionTimeout() {
        String pending = join("").join().memberId();
        assertEquals(1, coordinator.memberCount());
        nowMs += SESSION_MS;
        coordinator.tick(nowMs);
        assertEquals(0, coordinator.memberCount());
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, join(pending).join().error());
    }

    @Test
    void sessionExpiryRemovesTheMemberAndRebalances() {
        JoinResult[] members = stableGroupOfTwo();
        nowMs += SESSION_MS - 1;
        assertEquals(ErrorCode.NONE, heartbeat(members[0]));
        coordinator.tick(nowMs);
        assertEquals(GroupState.STABLE, state());
        nowMs += 1;
        coordinator.tick(nowMs);
        assertEquals(GroupState.PREPARING_REBALANCE, state(), "the silent follower's session expired");
        assertEquals(1, coordinator.describe(GROUP).members().size());
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, heartbeat(members[1]));
        JoinResult rejoined = join(members[0].memberId()).join();
        assertEquals(3, rejoined.generationId());
        assertEquals(1, rejoined.members().size());
    }

    @Test
    void rebalanceTimeoutRemovesMembersThatDoNotRejoin() {
        JoinResult[] members = stableGroupOfTwo();
        CompletableFuture<JoinResult> newcomer = joinNew();
        CompletableFuture<JoinResult> leaderRejoin = join(members[0].memberId());
        // The follower keeps heartbeating (its session stays alive) but never rejoins.
        nowMs += REBALANCE_MS - 1;
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, heartbeat(members[1]));
        coordinator.tick(nowMs);
        assertFalse(leaderRejoin.isDone());
        nowMs += 1;
        coordinator.tick(nowMs);
        JoinResult leader = leaderRejoin.join();
        assertEquals(3, leader.generationId());
        assertEquals(2, leader.members().size(), "the follower that did not rejoin was removed");
        assertEquals(3, newcomer.join().generationId());
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, heartbeat(members[1]));
    }

    @Test
    void leaderThatNeverSyncsIsRemovedAfterTheRebalanceTimeout() {
        CompletableFuture<JoinResult> first = joinNew();
        JoinResult alone = first.join();
        CompletableFuture<JoinResult> second = joinNew();
        JoinResult leader = join(alone.memberId()).join();
        JoinResult follower = second.join();
        CompletableFuture<SyncResult> followerSync = sync(follower, Map.of());
        // The leader stays alive (heartbeats are accepted while the assignment is pending) but never syncs.
        long syncDeadlineMs = nowMs + REBALANCE_MS;
        while (nowMs + 5_000 < syncDeadlineMs) {
            nowMs += 5_000;
            assertEquals(ErrorCode.NONE, heartbeat(leader));
            coordinator.tick(nowMs);
        }
        assertFalse(followerSync.isDone());
        nowMs = syncDeadlineMs;
        coordinator.tick(nowMs);
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, followerSync.join().error());
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, heartbeat(leader));
        JoinResult next = join(follower.memberId()).join();
        assertEquals(follower.memberId(), next.leaderId(), "the remaining member leads the next generation");
    }

    @Test
    void syncAndHeartbeatCheckGenerationAndMember() {
        JoinResult[] members = stableGroupOfTwo();
        JoinResult leader = members[0];
        assertEquals(ErrorCode.ILLEGAL_GENERATION,
                coordinator.heartbeat(GROUP, leader.generationId() - 1, leader.memberId(), null, nowMs));
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, coordinator.heartbeat(GROUP, 2, "stranger", null, nowMs));
        assertEquals(ErrorCode.ILLEGAL_GENERATION, coordinator.sync(GROUP, 7, leader.memberId(), null, Map.of(),
                nowMs).join().error());
        assertArrayEquals(bytes("p1"), sync(members[1], Map.of()).join().assignment(),
                "a SyncGroup in a Stable group returns the stored assignment");
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, coordinator.heartbeat("unknown-group", 1, "m", null, nowMs));
        assertEquals(ErrorCode.INVALID_GROUP_ID, coordinator.heartbeat("", 1, "m", null, nowMs));
    }

    @Test
    void followerRejoiningUnchangedGetsTheCurrentGeneration() {
        JoinResult[] members = stableGroupOfTwo();
        JoinResult again = join(members[1].memberId()).join();
        assertEquals(ErrorCode.NONE, again.error());
        assertEquals(members[1].generationId(), again.generationId());
        assertEquals(GroupState.STABLE, state());
        CompletableFuture<JoinResult> changed = coordinator.join(request(members[1].memberId(), null,
                List.of(protocol("range", "sub-b")), true), nowMs);
        assertFalse(changed.isDone(), "a changed subscription starts a rebalance");
        assertEquals(GroupState.PREPARING_REBALANCE, state());
    }

    @Test
    void protocolSelectionTakesTheMostVotedCommonProtocol() {
        List<Protocol> rangeFirst = List.of(protocol("range", "a"), protocol("roundrobin", "a"));
        List<Protocol> roundRobinFirst = List.of(protocol("roundrobin", "b"), protocol("range", "b"));
        List<Protocol> withSticky = List.of(protocol("sticky", "c"), protocol("range", "c"),
                protocol("roundrobin", "c"));
        coordinator = coordinator(1_000, 100);
        CompletableFuture<JoinResult> a = coordinator.join(request("", null, rangeFirst, false), nowMs);
        CompletableFuture<JoinResult> b = coordinator.join(request("", null, roundRobinFirst, false), nowMs);
        CompletableFuture<JoinResult> c = coordinator.join(request("", null, withSticky, false), nowMs);
        JoinResult onlySticky = coordinator.join(request("", null, List.of(protocol("sticky", "d")), false),
                nowMs).join();
        assertEquals(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, onlySticky.error());
        JoinResult otherType = coordinator.join(new JoinRequest(GROUP, "", null, "c", "h", SESSION_MS,
                REBALANCE_MS, "connect", rangeFirst, false), nowMs).join();
        assertEquals(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, otherType.error());
        nowMs += 1_000;
        coordinator.tick(nowMs);
        assertFalse(a.isDone(), "members joined during the initial delay, so it is extended once more");
        nowMs += 1_000;
        coordinator.tick(nowMs);
        // Common: range and roundrobin; votes: a range, b roundrobin, c range (sticky is not common).
        assertEquals("range", a.join().protocolName());
        assertEquals("range", b.join().protocolName());
        assertEquals("range", c.join().protocolName());
        JoinResult leader = a.join();
        assertArrayEquals(bytes("b"), leader.members().get(1).metadata(), "metadata of the chosen protocol");
    }

    @Test
    void initialRebalanceDelayWaitsForMoreMembers() {
        coordinator = coordinator(3_000, 100);
        CompletableFuture<JoinResult> first = coordinator.join(request("", null, RANGE, false), nowMs);
        nowMs += 2_000;
        CompletableFuture<JoinResult> second = coordinator.join(request("", null, RANGE, false), nowMs);
        nowMs += 1_000;
        coordinator.tick(nowMs);
        assertFalse(first.isDone(), "a member joined during the delay, so the delay is extended");
        nowMs += 2_999;
        coordinator.tick(nowMs);
        assertFalse(first.isDone());
        nowMs += 1;
        coordinator.tick(nowMs);
        assertEquals(1, first.join().generationId());
        assertEquals(2, first.join().members().size());
        assertEquals(1, second.join().generationId());
    }

    @Test
    void staticMemberRejoinKeepsItsAssignmentWithoutRebalance() {
        JoinResult joined = coordinator.join(request("", "instance-1", RANGE, true), nowMs).join();
        assertTrue(joined.memberId().startsWith("instance-1-"), joined.memberId());
        sync(joined, Map.of(joined.memberId(), bytes("p0-p5"))).join();
        assertEquals(GroupState.STABLE, state());
        // The process restarts: same instance id, no member id.
        JoinResult restarted = coordinator.join(request("", "instance-1", RANGE, true), nowMs).join();
        assertEquals(ErrorCode.NONE, restarted.error());
        assertNotEquals(joined.memberId(), restarted.memberId());
        assertEquals(joined.generationId(), restarted.generationId(), "no rebalance");
        assertEquals(restarted.memberId(), restarted.leaderId());
        assertEquals(GroupState.STABLE, state());
        SyncResult assignment = coordinator.sync(GROUP, restarted.generationId(), restarted.memberId(),
                "instance-1", Map.of(), nowMs).join();
        assertArrayEquals(bytes("p0-p5"), assignment.assignment());
        assertEquals(ErrorCode.FENCED_INSTANCE_ID, coordinator.heartbeat(GROUP, joined.generationId(),
                joined.memberId(), "instance-1", nowMs), "the old incarnation is fenced");
        assertEquals(ErrorCode.NONE, coordinator.heartbeat(GROUP, restarted.generationId(),
                restarted.memberId(), "instance-1", nowMs));
    }

    @Test
    void staticMemberThatDoesNotRejoinStaysUntilItsSessionExpires() {
        JoinResult staticMember = coordinator.join(request("", "instance-1", RANGE, true), nowMs).join();
        sync(staticMember, Map.of()).join();
        CompletableFuture<JoinResult> dynamic = joinNew();
        nowMs += REBALANCE_MS;
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, coordinator.heartbeat(GROUP, staticMember.generationId(),
                staticMember.memberId(), "instance-1", nowMs));
        coordinator.tick(nowMs);
        JoinResult next = dynamic.join();
        assertEquals(2, next.generationId());
        assertEquals(2, coordinator.describe(GROUP).members().size(), "static members survive the timeout");
    }

    @Test
    void limitsAreEnforcedWithTheirErrors() {
        coordinator = coordinator(0, 2);
        joinNew().join();
        joinNew();
        JoinResult third = join("").join();
        assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, third.error());
        JoinResult tooShort = coordinator.join(new JoinRequest(GROUP, "", null, "c", "h", 5_999, REBALANCE_MS,
                "consumer", RANGE, true), nowMs).join();
        assertEquals(ErrorCode.INVALID_SESSION_TIMEOUT, tooShort.error());
        JoinResult tooLong = coordinator.join(new JoinRequest(GROUP, "", null, "c", "h", 60_001, REBALANCE_MS,
                "consumer", RANGE, true), nowMs).join();
        assertEquals(ErrorCode.INVALID_SESSION_TIMEOUT, tooLong.error());
        JoinResult noProtocols = coordinator.join(new JoinRequest("other", "", null, "c", "h", SESSION_MS,
                REBALANCE_MS, "consumer", List.of(), false), nowMs).join();
        assertEquals(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, noProtocols.error());
    }

    @Test
    void groupsPerBrokerAreBoundedAndMemberlessGroupsMakeRoom() {
        JoinResult joined = coordinator.join(new JoinRequest("g0", "", null, "c", "h", SESSION_MS, REBALANCE_MS,
                "consumer", RANGE, false), nowMs).join();
        assertEquals(ErrorCode.NONE, joined.error());
        // The other groups hold one pending member each (told its id, not yet rejoined): not memberless.
        for (int i = 1; i < Limits.GROUPS_PER_BROKER_MAX; i++) {
            JoinResult pending = coordinator.join(new JoinRequest("g" + i, "", null, "c", "h", SESSION_MS,
                    REBALANCE_MS, "consumer", RANGE, true), nowMs).join();
            assertEquals(ErrorCode.MEMBER_ID_REQUIRED, pending.error());
        }
        JoinRequest extra = new JoinRequest("extra", "", null, "c", "h", SESSION_MS, REBALANCE_MS, "consumer",
                RANGE, false);
        assertEquals(ErrorCode.COORDINATOR_NOT_AVAILABLE, coordinator.join(extra, nowMs).join().error());
        assertEquals(ErrorCode.NONE, coordinator.leave("g0", joined.memberId(), nowMs));
        assertEquals(ErrorCode.NONE, coordinator.join(extra, nowMs).join().error(), "the Empty group was dropped");
        assertEquals(GroupState.DEAD, coordinator.describe("g0").state());
    }

    @Test
    void offsetCommitValidationFollowsClassicGroupRules() {
        assertEquals(ErrorCode.NONE, coordinator.validateOffsetCommit(GROUP, "", null, -1),
                "no group: a standalone consumer commits");
        assertEquals(ErrorCode.ILLEGAL_GENERATION, coordinator.validateOffsetCommit(GROUP, "m", null, 3));
        CompletableFuture<JoinResult> first = joinNew();
        JoinResult alone = first.join();
        assertEquals(GroupState.COMPLETING_REBALANCE, state());
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS,
                coordinator.validateOffsetCommit(GROUP, alone.memberId(), null, alone.generationId()));
        sync(alone, Map.of()).join();
        assertEquals(ErrorCode.NONE,
                coordinator.validateOffsetCommit(GROUP, alone.memberId(), null, alone.generationId()));
        assertEquals(ErrorCode.ILLEGAL_GENERATION,
                coordinator.validateOffsetCommit(GROUP, alone.memberId(), null, alone.generationId() + 1));
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID,
                coordinator.validateOffsetCommit(GROUP, "stranger", null, alone.generationId()));
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, coordinator.validateOffsetCommit(GROUP, "", null, -1),
                "a memberless commit is refused while the group has members");
        assertEquals(ErrorCode.NONE, coordinator.leave(GROUP, alone.memberId(), nowMs));
        assertEquals(ErrorCode.NONE, coordinator.validateOffsetCommit(GROUP, "", null, -1));
    }

    @Test
    void describeAndListShowStateProtocolAndMembers() {
        JoinResult[] members = stableGroupOfTwo();
        GroupDescription description = coordinator.describe(GROUP);
        assertEquals(GroupState.STABLE, description.state());
        assertEquals("consumer", description.protocolType());
        assertEquals("range", description.protocolName());
        assertEquals(List.of(members[0].memberId(), members[1].memberId()),
                description.members().stream().map(GroupDescription.MemberDescription::memberId).toList());
        assertArrayEquals(bytes("p1"), description.members().get(1).assignment());
        assertEquals("/127.0.0.1", description.members().get(0).clientHost());
        assertEquals(List.of(new GroupListing(GROUP, "consumer", GroupState.STABLE)), coordinator.listGroups());
        assertEquals(GroupState.DEAD, coordinator.describe("nobody").state());
    }

    @Test
    void groupsThisBrokerNoLongerCoordinatesAreUnloaded() {
        CompletableFuture<JoinResult> first = joinNew();
        JoinResult alone = first.join();
        CompletableFuture<JoinResult> parked = joinNew();
        notOwned.add(GROUP);
        assertEquals(ErrorCode.NOT_COORDINATOR, heartbeat(alone));
        coordinator.tick(nowMs);
        assertEquals(ErrorCode.NOT_COORDINATOR, parked.join().error());
        assertTrue(coordinator.listGroups().isEmpty());
        notOwned.clear();
        assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, heartbeat(alone), "a new coordinator starts the group empty");
    }

    @Test
    void joinGroupV0WithoutRebalanceTimeoutWaitsTheSessionTimeout() {
        JoinRequest v0 = new JoinRequest(GROUP, "", null, "client", "h", SESSION_MS, -1, "consumer", RANGE, false);
        JoinResult first = coordinator.join(v0, nowMs).join();
        sync(first, Map.of()).join();
        CompletableFuture<JoinResult> second = coordinator.join(v0, nowMs);
        nowMs += SESSION_MS - 1;
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, heartbeat(first));
        coordinator.tick(nowMs);
        assertFalse(second.isDone());
        nowMs += 1;
        coordinator.tick(nowMs);
        assertEquals(1, second.join().members().size(), "the first member did not rejoin within the session timeout");
    }

    @Test
    void pendingMemberIdsCountTowardsTheGroupSize() {
        coordinator = coordinator(0, 2);
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED, join("").join().error());
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED, join("").join().error());
        assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, join("").join().error(),
                "members told their id but not yet rejoined hold their places");
    }

    @Test
    void membersPerBrokerAreBoundedOverAllGroups() {
        coordinator = coordinator(0, Limits.GROUP_MEMBERS_MAX);
        int groups = Limits.GROUP_MEMBERS_PER_BROKER_MAX / Limits.GROUP_MEMBERS_MAX;
        for (int g = 0; g < groups; g++) {
            for (int m = 0; m < Limits.GROUP_MEMBERS_MAX; m++) {
                JoinResult pending = coordinator.join(new JoinRequest("g" + g, "", null, "c", "h", SESSION_MS,
                        REBALANCE_MS, "consumer", RANGE, true), nowMs).join();
                assertEquals(ErrorCode.MEMBER_ID_REQUIRED, pending.error());
            }
        }
        assertEquals(Limits.GROUP_MEMBERS_PER_BROKER_MAX, coordinator.memberCount());
        JoinResult refused = coordinator.join(request("", null, RANGE, true), nowMs).join();
        assertEquals(ErrorCode.COORDINATOR_NOT_AVAILABLE, refused.error(), "retriable: room may come back");
        nowMs += SESSION_MS;
        coordinator.tick(nowMs);
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED, coordinator.join(request("", null, RANGE, true), nowMs).join()
                .error(), "expired pending ids made room");
    }

    /** A consumer's subscription metadata (ConsumerProtocolSubscription v0) for {@code topics}. */
    private static byte[] subscription(String... topics) {
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(256);
        out.putShort((short) 0).putInt(topics.length);
        for (String topic : topics) {
            byte[] name = bytes(topic);
            out.putShort((short) name.length).put(name);
        }
        out.putInt(-1); // user data: null
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    /** DeleteGroups (issue 19): a group with members stays; an empty one is forgotten; an unknown one is not here. */
    @Test
    void deleteGroupRefusesAGroupWithMembersAndForgetsAnEmptyOne() {
        JoinResult joined = joinNew().join();
        assertEquals(GroupCoordinator.GroupDeletion.NOT_EMPTY, coordinator.deleteGroup(GROUP));
        assertTrue(coordinator.isLoaded(GROUP));
        assertEquals(ErrorCode.NONE, coordinator.leave(GROUP, joined.memberId(), nowMs));
        assertEquals(GroupCoordinator.GroupDeletion.REMOVED, coordinator.deleteGroup(GROUP));
        assertEquals(false, coordinator.isLoaded(GROUP));
        assertEquals(GroupState.DEAD, state());
        assertEquals(GroupCoordinator.GroupDeletion.NOT_LOADED, coordinator.deleteGroup(GROUP));
    }

    /** OffsetDelete (issue 19): a consumer group keeps the offsets of topics its members subscribe to. */
    @Test
    void offsetDeletionIsRefusedForSubscribedTopicsOnly() {
        assertEquals(ErrorCode.NONE, coordinator.offsetDeletion(GROUP, "t1"), "a group not held here");
        List<Protocol> subscribed = List.of(new Protocol("range", subscription("t1", "t3")));
        JoinResult first = coordinator.join(request("", null, subscribed, true), nowMs).join();
        JoinResult joined = coordinator.join(request(first.memberId(), null, subscribed, true), nowMs).join();
        assertEquals(ErrorCode.NONE, joined.error());
        assertEquals(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, coordinator.offsetDeletion(GROUP, "t1"));
        assertEquals(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, coordinator.offsetDeletion(GROUP, "t3"));
        assertEquals(ErrorCode.NONE, coordinator.offsetDeletion(GROUP, "t2"));
        assertEquals(ErrorCode.NONE, coordinator.leave(GROUP, joined.memberId(), nowMs));
        assertEquals(ErrorCode.NONE, coordinator.offsetDeletion(GROUP, "t1"), "empty: every offset may go");
    }

    @Test
    void offsetDeletionTreatsUnreadableSubscriptionsAsSubscribedAndOtherProtocolsAsNonEmpty() {
        joinNew().join(); // metadata "sub-a" is no ConsumerProtocolSubscription
        assertEquals(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, coordinator.offsetDeletion(GROUP, "any"));
        JoinRequest connect = new JoinRequest("workers", "", null, "client", "/127.0.0.1", SESSION_MS, REBALANCE_MS,
                "connect", RANGE, false);
        assertEquals(ErrorCode.NONE, coordinator.join(connect, nowMs).join().error());
        assertEquals(ErrorCode.NON_EMPTY_GROUP, coordinator.offsetDeletion("workers", "any"));
    }

    @Test
    void subscriptionsAreReadDefensively() {
        assertEquals(java.util.Optional.of(Set.of("a", "b")), ConsumerSubscription.topics(subscription("a", "b")));
        assertEquals(java.util.Optional.empty(), ConsumerSubscription.topics(null));
        assertEquals(java.util.Optional.empty(), ConsumerSubscription.topics(new byte[] {0, 0, 0x7f, 0, 0, 0}));
        assertEquals(java.util.Optional.empty(), ConsumerSubscription.topics(new byte[] {0, 0, 0, 0, 0, 1, 0, 9}));
        assertEquals(java.util.Optional.empty(), ConsumerSubscription.topics(new byte[] {0}));
    }
}
