package dev.cairn.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One classic group's state: its members in join order, the static members' instance ids, the pending members
 * (given an id with MEMBER_ID_REQUIRED but not yet rejoined), the generation and the deadlines the coordinator's
 * tick enforces. The coordinator drives the transitions; this class keeps the bookkeeping consistent.
 */
final class Group {
    private final String groupId;
    private GroupState state = GroupState.EMPTY;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Map<String, String> staticMemberIds = new HashMap<>();
    /** Pending member id to the time it expires unless the member rejoins with it. */
    private final Map<String, Long> pendingMembers = new LinkedHashMap<>();
    /** Members of the current generation that have not sent their SyncGroup yet. */
    private final Set<String> pendingSync = new LinkedHashSet<>();
    /** When PreparingRebalance ends whether or not every member rejoined. */
    private long joinDeadlineMs;
    /** Whether the current rebalance is an empty group's first, which waits out the initial delay. */
    private boolean initialDelayedJoin;
    /** Rebalance time left for further initial-delay extensions. */
    private long initialDelayRemainingMs;
    private boolean newMemberAddedDuringDelay;
    /** When members still in {@link #pendingSync} are removed. */
    private long syncDeadlineMs;

    Group(String groupId) {
        this.groupId = groupId;
    }

    String groupId() {
        return groupId;
    }

    GroupState state() {
        return state;
    }

    void state(GroupState newState) {
        this.state = newState;
    }

    int generationId() {
        return generationId;
    }

    String protocolType() {
        return protocolType;
    }

    String protocolName() {
        return protocolName;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    Member member(String memberId) {
        return members.get(memberId);
    }

    List<Member> members() {
        return new ArrayList<>(members.values());
    }

    int memberCount() {
        return members.size();
    }

    boolean hasMembers() {
        return !members.isEmpty();
    }

    /** The member id a static instance holds, or null. */
    String staticMemberId(String groupInstanceId) {
        return staticMemberIds.get(groupInstanceId);
    }

    void add(Member member) {
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        members.put(member.memberId(), member);
        if (member.isStatic()) {
            staticMemberIds.put(member.groupInstanceId(), member.memberId());
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        newMemberAddedDuringDelay = true;
    }

    void remove(Member member) {
        members.remove(member.memberId());
        pendingSync.remove(member.memberId());
        if (member.isStatic() && member.memberId().equals(staticMemberIds.get(member.groupInstanceId()))) {
            staticMemberIds.remove(member.groupInstanceId());
        }
        if (isLeader(member.memberId())) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Gives a static member a new member id (a restarted instance), keeping its place and assignment. */
    void replaceMemberId(Member member, String newMemberId) {
        String oldMemberId = member.memberId();
        Map<String, Member> reordered = new LinkedHashMap<>();
        for (Map.Entry<String, Member> entry : members.entrySet()) {
            reordered.put(entry.getKey().equals(oldMemberId) ? newMemberId : entry.getKey(), entry.getValue());
        }
        members.clear();
        members.putAll(reordered);
        member.memberId(newMemberId);
        staticMemberIds.put(member.groupInstanceId(), newMemberId);
        if (pendingSync.remove(oldMemberId)) {
            pendingSync.add(newMemberId);
        }
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
    }

    Map<String, Long> pendingMembers() {
        return pendingMembers;
    }

    int pendingCount() {
        return pendingMembers.size();
    }

    /** Whether every member has a parked JoinGroup and no pending member is still expected to rejoin. */
    boolean allMembersJoined() {
        if (!pendingMembers.isEmpty()) {
            return false;
        }
        for (Member member : members.values()) {
            if (!member.awaitingJoin()) {
                return false;
            }
        }
        return true;
    }

    /** The longest rebalance timeout among the members: how long a rebalance waits for them to rejoin. */
    int rebalanceTimeoutMs() {
        int timeoutMs = 0;
        for (Member member : members.values()) {
            timeoutMs = Math.max(timeoutMs, member.rebalanceTimeoutMs());
        }
        return timeoutMs;
    }

    /**
     * Whether a member with these protocols may join: an empty group accepts any non-empty protocol list of a
     * non-empty type; otherwise the type must match and one of the protocols must be supported by every member.
     */
    boolean supports(String memberProtocolType, List<Protocol> protocols) {
        if (memberProtocolType == null || memberProtocolType.isEmpty() || protocols.isEmpty()) {
            return false;
        }
        if (members.isEmpty()) {
            return true;
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        for (Protocol protocol : protocols) {
            if (supportedByAll(protocol.name(), null)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every member other than {@code except} supports {@code protocolName}. */
    private boolean supportedByAll(String protocolName, Member except) {
        for (Member member : members.values()) {
            if (member != except && !member.supports(protocolName)) {
                return false;
            }
        }
        return true;
    }

    /** Like {@link #supports}, for a member already in the group that rejoins with new protocols. */
    boolean supportsRejoin(Member rejoining, String memberProtocolType, List<Protocol> protocols) {
        if (memberProtocolType == null || !memberProtocolType.equals(protocolType) || protocols.isEmpty()) {
            return false;
        }
        for (Protocol protocol : protocols) {
            if (supportedByAll(protocol.name(), rejoining)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Kafka's protocol vote: among the protocols every member supports, each member votes for the first one in
     * its own preference order, and the most votes win. Ties go to the protocol the earliest-joined member
     * prefers, so the choice is deterministic.
     */
    String selectProtocol() {
        Member first = members.values().iterator().next();
        List<String> candidates = new ArrayList<>();
        for (Protocol protocol : first.protocols()) {
            if (supportedByAll(protocol.name(), null)) {
                candidates.add(protocol.name());
            }
        }
        Map<String, Integer> votes = new HashMap<>();
        for (Member member : members.values()) {
            for (Protocol protocol : member.protocols()) {
                if (candidates.contains(protocol.name())) {
                    votes.merge(protocol.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        String selected = null;
        int best = -1;
        for (String candidate : candidates) {
            int count = votes.getOrDefault(candidate, 0);
            if (count > best) {
                best = count;
                selected = candidate;
            }
        }
        return selected;
    }

    /** Starts the next generation from the members present: CompletingRebalance, or Empty if none are left. */
    void nextGeneration() {
        generationId++;
        pendingSync.clear();
        if (members.isEmpty()) {
            state = GroupState.EMPTY;
            protocolName = null;
            leaderId = null;
        } else {
            state = GroupState.COMPLETING_REBALANCE;
            protocolName = selectProtocol();
            pendingSync.addAll(members.keySet());
        }
    }

    /** Makes {@code memberId} the leader when the old leader did not rejoin. */
    void leaderId(String memberId) {
        this.leaderId = memberId;
    }

    Set<String> pendingSync() {
        return pendingSync;
    }

    long joinDeadlineMs() {
        return joinDeadlineMs;
    }

    void joinDeadlineMs(long deadlineMs) {
        this.joinDeadlineMs = deadlineMs;
    }

    boolean initialDelayedJoin() {
        return initialDelayedJoin;
    }

    void startInitialDelay(long remainingMs) {
        this.initialDelayedJoin = true;
        this.initialDelayRemainingMs = remainingMs;
        this.newMemberAddedDuringDelay = false;
    }

    void endInitialDelay() {
        this.initialDelayedJoin = false;
    }

    long initialDelayRemainingMs() {
        return initialDelayRemainingMs;
    }

    /** Reports whether a member joined since the last call, and resets the flag. */
    boolean takeNewMemberAdded() {
        boolean added = newMemberAddedDuringDelay;
        newMemberAddedDuringDelay = false;
        return added;
    }

    void consumeInitialDelay(long delayMs) {
        initialDelayRemainingMs -= delayMs;
    }

    long syncDeadlineMs() {
        return syncDeadlineMs;
    }

    void syncDeadlineMs(long deadlineMs) {
        this.syncDeadlineMs = deadlineMs;
    }
}
