package dev.cairn.broker.raft;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * One Ratis {@link RaftServer} per broker, hosting many Raft groups (the metadata group and one per
 * partition). Groups are added at runtime on this server only ({@link #addGroup}); every replica's broker adds
 * the group itself, since Ratis propagates nothing. Commands are submitted to the local server directly, with
 * no network hop: the caller is on the leader, or gets a {@link SubmitResult.NotLeader} back.
 */
public final class RaftHost implements Closeable {
    /** How long Ratis may take to start a snapshot asked for by bytes before the request fails (and is asked again). */
    private static final long SNAPSHOT_REQUEST_TIMEOUT_MS = 60_000;

    private final RaftServer server;
    private final RaftPeerId selfId;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final SubmitLanes lanes;

    public RaftHost(String nodeId, RatisSettings settings, StateMachine.Registry registry) throws IOException {
        this.selfId = RaftPeerId.valueOf(nodeId);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setProperties(settings.toProperties())
                .setParameters(settings.toParameters())
                .setStateMachineRegistry(registry)
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        this.lanes = new SubmitLanes(settings.submitThreads());
    }

    public void start() throws IOException {
        server.start();
    }

    public RaftPeerId selfId() {
        return selfId;
    }

    public static RaftPeer peer(String nodeId, String address) {
        return RaftPeer.newBuilder().setId(nodeId).setAddress(address).build();
    }

    /** Adds (and formats the storage of) a group on this server; a group it already hosts is left alone. */
    public void addGroup(RaftGroupId groupId, List<RaftPeer> peers) throws IOException {
        if (hostsGroup(groupId)) {
            return;
        }
        RaftGroup group = RaftGroup.valueOf(groupId, peers);
        RaftClientReply reply = server.groupManagement(
                GroupManagementRequest.newAdd(clientId, selfId, callIds.incrementAndGet(), group, true));
        if (!reply.isSuccess()) {
            throw new IOException("adding Raft group " + groupId + " failed: " + reply.getException());
        }
    }

    /** Removes a group from this server, deleting its Raft storage. */
    public void removeGroup(RaftGroupId groupId) throws IOException {
        if (!hostsGroup(groupId)) {
            return;
        }
        RaftClientReply reply = server.groupManagement(
                GroupManagementRequest.newRemove(clientId, selfId, callIds.incrementAndGet(), groupId, true, false));
        if (!reply.isSuccess()) {
            throw new IOException("removing Raft group " + groupId + " failed: " + reply.getException());
        }
        lanes.remove(groupId);
    }

    /** The groups this server hosts now. */
    public java.util.Collection<RaftGroupId> groupIds() {
        java.util.List<RaftGroupId> ids = new java.util.ArrayList<>();
        server.getGroupIds().forEach(ids::add);
        return ids;
    }

    public boolean hostsGroup(RaftGroupId groupId) {
        for (RaftGroupId id : server.getGroupIds()) {
            if (id.equals(groupId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Leadership as this server sees it, or empty when it does not host the group or the group is still starting
     * (Ratis throws IllegalStateException, "stateMachineUpdater is uninitialized", for a division just added).
     */
    public Optional<GroupRole> role(RaftGroupId groupId) {
        try {
            DivisionInfo info = server.getDivision(groupId).getInfo();
            RaftPeerId leader = info.getLeaderId();
            return Optional.of(new GroupRole(info.isLeader() && info.isLeaderReady(),
                    leader == null ? null : leader.toString(), info.getCurrentTerm(), info.getLastAppliedIndex()));
        } catch (IOException | IllegalStateException e) {
            return Optional.empty();
        }
    }

    /** The highest index this server knows committed in the group, or empty when it does not host it. */
    public java.util.OptionalLong committedIndex(RaftGroupId groupId) {
        try {
            return java.util.OptionalLong.of(server.getDivision(groupId).getRaftLog().getLastCommittedIndex());
        } catch (IOException | IllegalStateException e) {
            return java.util.OptionalLong.empty();
        }
    }

    /** Whether this server applied every entry of the group it knows committed; false when it does not host it. */
    public boolean caughtUp(RaftGroupId groupId) {
        java.util.OptionalLong committed = committedIndex(groupId);
        return committed.isPresent()
                && role(groupId).map(GroupRole::appliedRaftIndex).orElse(-1L) >= committed.getAsLong();
    }

    /** The first index still in this server's Raft log of the group, or empty when it does not host it. */
    public java.util.OptionalLong raftLogStartIndex(RaftGroupId groupId) {
        try {
            return java.util.OptionalLong.of(server.getDivision(groupId).getRaftLog().getStartIndex());
        } catch (IOException | IllegalStateException e) {
            return java.util.OptionalLong.empty();
        }
    }

    /**
     * The node ids of the group's voters as this server's Raft configuration lists them, or empty when it does not
     * host the group or a configuration change is still in progress (Raft's joint configuration).
     */
    public Optional<java.util.Set<String>> voters(RaftGroupId groupId) {
        try {
            var conf = server.getDivision(groupId).getRaftConf();
            if (!conf.getPreviousPeers().isEmpty()) {
                return Optional.empty();
            }
            java.util.Set<String> ids = new java.util.TreeSet<>();
            conf.getCurrentPeers().forEach(peer -> ids.add(peer.getId().toString()));
            return Optional.of(ids);
        } catch (IOException | IllegalStateException e) {
            return Optional.empty();
        }
    }

    /**
     * Asks this server, the group's leader, to make {@code peers} the group's voters (Ratis's membership change: new
     * peers are caught up before the new configuration is committed). Completes once it is committed, or
     * exceptionally with Ratis's reason.
     */
    public CompletableFuture<Void> setVoters(RaftGroupId groupId, List<RaftPeer> peers) {
        try {
            var request = new org.apache.ratis.protocol.SetConfigurationRequest(clientId, selfId, groupId,
                    callIds.incrementAndGet(), peers);
            return server.setConfigurationAsync(request).thenCompose(reply -> reply.isSuccess()
                    ? CompletableFuture.<Void>completedFuture(null)
                    : CompletableFuture.<Void>failedFuture(reply.getException()));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Asks this server, the group's leader, to hand leadership to {@code newLeaderNodeId}; true on success. */
    public CompletableFuture<Boolean> transferLeadership(RaftGroupId groupId, String newLeaderNodeId, long timeoutMs) {
        try {
            var request = new org.apache.ratis.protocol.TransferLeadershipRequest(clientId, selfId, groupId,
                    callIds.incrementAndGet(), RaftPeerId.valueOf(newLeaderNodeId), timeoutMs);
            return server.transferLeadershipAsync(request).handle((reply, error) -> error == null && reply.isSuccess());
        } catch (IOException e) {
            return CompletableFuture.completedFuture(false);
        }
    }

    /** The leader's view of its followers, or empty when this server does not lead the group. */
    public Optional<ReplicationStatus> replicationStatus(RaftGroupId groupId) {
        try {
            RaftServer.Division division = server.getDivision(groupId);
            var role = division.getInfo().getRoleInfoProto();
            if (!role.hasLeaderInfo()) {
                return Optional.empty();
            }
            java.util.Map<String, Long> commitIndexes = new java.util.HashMap<>();
            for (var info : division.getCommitInfos()) {
                commitIndexes.put(RaftPeerId.valueOf(info.getServer().getId()).toString(), info.getCommitIndex());
            }
            java.util.Map<String, ReplicationStatus.Follower> followers = new java.util.HashMap<>();
            for (var follower : role.getLeaderInfo().getFollowerInfoList()) {
                String id = RaftPeerId.valueOf(follower.getId().getId()).toString();
                followers.put(id, new ReplicationStatus.Follower(commitIndexes.getOrDefault(id, -1L),
                        follower.getLastRpcElapsedTimeMs()));
            }
            long leaderCommit = commitIndexes.getOrDefault(selfId.toString(), -1L);
            return Optional.of(new ReplicationStatus(leaderCommit, followers));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Replicates {@code command} through the group and completes with the state machine's reply once a
     * majority committed and this server applied it. Never completes exceptionally: failures are results. Returns at
     * once: the command reaches the group on a {@link SubmitLanes} thread, after every command submitted earlier to
     * the same group.
     */
    public CompletableFuture<SubmitResult> submit(RaftGroupId groupId, ByteBuffer... commandParts) {
        // The parts are joined as a rope, not copied: Ratis writes and sends the entry part by part.
        ByteString command = ByteString.EMPTY;
        for (ByteBuffer part : commandParts) {
            command = command.concat(UnsafeByteOperations.unsafeWrap(part));
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(command))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        CompletableFuture<SubmitResult> result = new CompletableFuture<>();
        lanes.execute(groupId, () -> submitNow(request).whenComplete((r, error) -> result.complete(
                error != null ? new SubmitResult.Failed(error) : SubmitResult.of(r))));
        return result;
    }

    /**
     * Asks Ratis to snapshot {@code groupId} now and purge its log behind the snapshot; Ratis takes it on the group's
     * apply thread. Returns at once: the request is sent from the group's {@link SubmitLanes} lane, never from the
     * caller's thread (the apply thread, which must not wait on the server's locks).
     */
    public CompletableFuture<RaftClientReply> requestSnapshot(RaftGroupId groupId) {
        CompletableFuture<RaftClientReply> result = new CompletableFuture<>();
        lanes.execute(groupId, () -> {
            // Creation gap 1: Ratis's default (1024 entries since the last snapshot) ignores a request made after a
            // few large entries.
            SnapshotManagementRequest request = SnapshotManagementRequest.newCreate(clientId, selfId, groupId,
                    callIds.incrementAndGet(), SNAPSHOT_REQUEST_TIMEOUT_MS, 1);
            server.snapshotManagementAsync(request).whenComplete((reply, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (!reply.isSuccess()) {
                    result.completeExceptionally(reply.getException());
                } else {
                    result.complete(reply);
                }
            });
        });
        return result;
    }

    /**
     * Submits on the calling thread, straight to the group's division: RaftServer's own submit would hand the call to
     * the division's client executor and wait for it, a second thread switch for nothing.
     */
    private CompletableFuture<RaftClientReply> submitNow(RaftClientRequest request) {
        try {
            RaftServer.Division division = server.getDivision(request.getRaftGroupId());
            if (division instanceof RaftClientAsynchronousProtocol direct) {
                return direct.submitClientRequestAsync(request);
            }
            return server.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        lanes.close();
    }
}
