package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.HeartbeatRequest;
import dev.cairn.protocol.message.HeartbeatResponse;
import dev.cairn.protocol.message.LeaveGroupRequest;
import dev.cairn.protocol.message.LeaveGroupResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/** Heartbeat and LeaveGroup for a group member, over the coordinator's own connection. */
final class GroupRequests {
    private GroupRequests() {
    }

    /** Sends a Heartbeat; the future completes with the error code (NONE when the member is in good standing). */
    static CompletableFuture<ErrorCode> heartbeat(BrokerConnection coordinator, String groupId, int generationId,
                                                  String memberId, String groupInstanceId) {
        Struct request = new Struct(HeartbeatRequest.SCHEMA)
                .set(HeartbeatRequest.GROUP_ID, groupId)
                .set(HeartbeatRequest.GENERATION_ID, generationId)
                .set(HeartbeatRequest.MEMBER_ID, memberId)
                .set(HeartbeatRequest.GROUP_INSTANCE_ID, groupInstanceId);
        return coordinator.send(ApiKey.HEARTBEAT, request, true)
                .thenApply(response -> ErrorCode.forCode(response.get(HeartbeatResponse.ERROR_CODE)));
    }

    /** Sends LeaveGroup (v0-1: one member) and waits up to request.timeout.ms. */
    static void leave(ClusterClient cluster, int coordinator, String groupId, String memberId) {
        Struct request = new Struct(LeaveGroupRequest.SCHEMA)
                .set(LeaveGroupRequest.GROUP_ID, groupId)
                .set(LeaveGroupRequest.MEMBER_ID, memberId);
        Struct response = BrokerConnection.await(cluster.coordinatorConnection(coordinator)
                .send(ApiKey.LEAVE_GROUP, request, true), cluster.requestTimeoutMs(), "LeaveGroup");
        ErrorCode error = ErrorCode.forCode(response.get(LeaveGroupResponse.ERROR_CODE));
        if (error != ErrorCode.NONE && error != ErrorCode.UNKNOWN_MEMBER_ID) {
            throw new CairnApiException(error, "LeaveGroup for group " + groupId);
        }
    }
}
