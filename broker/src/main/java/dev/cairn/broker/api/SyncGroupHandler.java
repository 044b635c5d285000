package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.SyncResult;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.SyncGroupRequest;
import dev.cairn.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import dev.cairn.protocol.message.SyncGroupResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * SyncGroup (key 14), versions 0-3: the leader sends every member's assignment, which the coordinator relays to
 * each member without reading it. A member's response is parked until the leader's assignment arrives (at most
 * the group's rebalance timeout).
 */
public final class SyncGroupHandler implements RequestHandler {
    private final GroupCoordinator coordinator;
    private final LongSupplier clockMs;

    public SyncGroupHandler(GroupCoordinator coordinator, LongSupplier clockMs) {
        this.coordinator = coordinator;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        if (!context.session().allowedOnGroup(AclOperation.READ, body.get(SyncGroupRequest.GROUP_ID))) {
            return CompletableFuture.completedFuture(response(SyncResult.error(ErrorCode.GROUP_AUTHORIZATION_FAILED)));
        }
        Map<String, byte[]> assignments = new HashMap<>();
        for (Struct assignment : body.get(SyncGroupRequest.ASSIGNMENTS)) {
            assignments.put(assignment.get(SyncGroupRequestAssignment.MEMBER_ID),
                    assignment.get(SyncGroupRequestAssignment.ASSIGNMENT));
        }
        return coordinator.sync(body.get(SyncGroupRequest.GROUP_ID), body.get(SyncGroupRequest.GENERATION_ID),
                body.get(SyncGroupRequest.MEMBER_ID), body.get(SyncGroupRequest.GROUP_INSTANCE_ID), assignments,
                clockMs.getAsLong()).thenApply(SyncGroupHandler::response);
    }

    static Struct response(SyncResult result) {
        return new Struct(SyncGroupResponse.SCHEMA)
                .set(SyncGroupResponse.THROTTLE_TIME_MS, 0)
                .set(SyncGroupResponse.ERROR_CODE, result.error().code())
                .set(SyncGroupResponse.ASSIGNMENT, result.assignment());
    }
}
