package dev.cairn.broker.api;

import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.LeaveGroupRequest;
import dev.cairn.protocol.message.LeaveGroupResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * LeaveGroup (key 13), versions 0-1: one member leaves at once (a consumer's close), so the others rebalance
 * without waiting for its session to time out.
 */
public final class LeaveGroupHandler implements RequestHandler {
    private final GroupCoordinator coordinator;
    private final LongSupplier clockMs;

    public LeaveGroupHandler(GroupCoordinator coordinator, LongSupplier clockMs) {
        this.coordinator = coordinator;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        ErrorCode error = !context.session().allowedOnGroup(AclOperation.READ, body.get(LeaveGroupRequest.GROUP_ID))
                ? ErrorCode.GROUP_AUTHORIZATION_FAILED : coordinator.leave(body.get(LeaveGroupRequest.GROUP_ID),
                body.get(LeaveGroupRequest.MEMBER_ID), clockMs.getAsLong());
        return CompletableFuture.completedFuture(new Struct(LeaveGroupResponse.SCHEMA)
                .set(LeaveGroupResponse.THROTTLE_TIME_MS, 0)
                .set(LeaveGroupResponse.ERROR_CODE, error.code()));
    }
}
