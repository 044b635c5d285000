package dev.cairn.broker.api;

import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.HeartbeatRequest;
import dev.cairn.protocol.message.HeartbeatResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Heartbeat (key 12), versions 0-3: keeps a member's session alive; REBALANCE_IN_PROGRESS tells it to rejoin,
 * ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID that it was left behind or replaced.
 */
public final class HeartbeatHandler implements RequestHandler {
    private final GroupCoordinator coordinator;
    private final LongSupplier clockMs;

    public HeartbeatHandler(GroupCoordinator coordinator, LongSupplier clockMs) {
        this.coordinator = coordinator;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        ErrorCode error = !context.session().allowedOnGroup(AclOperation.READ, body.get(HeartbeatRequest.GROUP_ID))
                ? ErrorCode.GROUP_AUTHORIZATION_FAILED : coordinator.heartbeat(body.get(HeartbeatRequest.GROUP_ID),
                body.get(HeartbeatRequest.GENERATION_ID), body.get(HeartbeatRequest.MEMBER_ID),
                body.get(HeartbeatRequest.GROUP_INSTANCE_ID), clockMs.getAsLong());
        return CompletableFuture.completedFuture(new Struct(HeartbeatResponse.SCHEMA)
                .set(HeartbeatResponse.THROTTLE_TIME_MS, 0)
                .set(HeartbeatResponse.ERROR_CODE, error.code()));
    }
}
