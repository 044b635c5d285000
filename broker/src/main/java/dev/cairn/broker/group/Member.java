package dev.cairn.broker.group;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a group. A member parks at most one JoinGroup and one SyncGroup response at a time: a second
 * request replaces the first, which is answered at once, so parked responses are bounded by the members.
 */
final class Member {
    private String memberId;
    private final String groupInstanceId;
    private String clientId;
    private String clientHost;
    private int sessionTimeoutMs;
    private int rebalanceTimeoutMs;
    private String protocolType;
    private List<Protocol> protocols;
    private byte[] assignment = SyncResult.NO_ASSIGNMENT;
    /** When the member is considered gone unless it heartbeats, joins or syncs again. */
    private long sessionDeadlineMs;
    private CompletableFuture<JoinResult> joinFuture;
    private CompletableFuture<SyncResult> syncFuture;

    Member(String memberId, JoinRequest request, int rebalanceTimeoutMs) {
        this.memberId = memberId;
        this.groupInstanceId = request.groupInstanceId();
        update(request, rebalanceTimeoutMs);
    }

    /** Takes the timeouts, client identity and protocols of a (re)join. */
    void update(JoinRequest request, int rebalanceTimeoutMs) {
        this.clientId = request.clientId();
        this.clientHost = request.clientHost();
        this.sessionTimeoutMs = request.sessionTimeoutMs();
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.protocolType = request.protocolType();
        this.protocols = request.protocols();
    }

    String memberId() {
        return memberId;
    }

    void memberId(String newMemberId) {
        this.memberId = newMemberId;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    String protocolType() {
        return protocolType;
    }

    List<Protocol> protocols() {
        return protocols;
    }

    boolean supports(String protocolName) {
        return metadata(protocolName) != null;
    }

    /** The member's metadata for {@code protocolName}, or null if it does not support it. */
    byte[] metadata(String protocolName) {
        for (Protocol protocol : protocols) {
            if (protocol.name().equals(protocolName)) {
                return protocol.metadata();
            }
        }
        return null;
    }

    /** Whether a rejoin carries the same protocols, names, order and metadata, as this member last sent. */
    boolean sameProtocols(List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            Protocol a = protocols.get(i);
            Protocol b = other.get(i);
            if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) {
                return false;
            }
        }
        return true;
    }

    byte[] assignment() {
        return assignment;
    }

    void assignment(byte[] newAssignment) {
        this.assignment = newAssignment;
    }

    long sessionDeadlineMs() {
        return sessionDeadlineMs;
    }

    void heartbeat(long nowMs) {
        this.sessionDeadlineMs = nowMs + sessionTimeoutMs;
    }

    boolean awaitingJoin() {
        return joinFuture != null;
    }

    boolean awaitingSync() {
        return syncFuture != null;
    }

    /** Parks a join response, returning the one it replaces (or null), which the caller must answer. */
    CompletableFuture<JoinResult> parkJoin(CompletableFuture<JoinResult> future) {
        CompletableFuture<JoinResult> previous = joinFuture;
        joinFuture = future;
        return previous;
    }

    /** Unparks the join response, returning it (or null if none was parked). */
    CompletableFuture<JoinResult> takeJoin() {
        CompletableFuture<JoinResult> future = joinFuture;
        joinFuture = null;
        return future;
    }

    CompletableFuture<SyncResult> parkSync(CompletableFuture<SyncResult> future) {
        CompletableFuture<SyncResult> previous = syncFuture;
        syncFuture = future;
        return previous;
    }

    CompletableFuture<SyncResult> takeSync() {
        CompletableFuture<SyncResult> future = syncFuture;
        syncFuture = null;
        return future;
    }
}
