package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.JoinRequest;
import dev.cairn.broker.group.JoinResult;
import dev.cairn.broker.group.Protocol;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.JoinGroupRequest;
import dev.cairn.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import dev.cairn.protocol.message.JoinGroupResponse;
import dev.cairn.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * JoinGroup (key 11), versions 0-5. The response is parked in the {@link GroupCoordinator} until the rebalance
 * completes (at most the group's rebalance timeout). From v4 a new dynamic member is first answered
 * MEMBER_ID_REQUIRED with its id, and v5 carries the static member's {@code group.instance.id}.
 */
public final class JoinGroupHandler implements RequestHandler {
    /** The first version whose new members must learn their member id before joining (KIP-394). */
    static final short MEMBER_ID_REQUIRED_VERSION_MIN = 4;

    private final GroupCoordinator coordinator;
    private final LongSupplier clockMs;

    public JoinGroupHandler(GroupCoordinator coordinator, LongSupplier clockMs) {
        this.coordinator = coordinator;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        if (!context.session().allowedOnGroup(AclOperation.READ, body.get(JoinGroupRequest.GROUP_ID))) {
            return CompletableFuture.completedFuture(response(JoinResult.error(ErrorCode.GROUP_AUTHORIZATION_FAILED,
                    body.get(JoinGroupRequest.MEMBER_ID))));
        }
        List<Protocol> protocols = new ArrayList<>();
        for (Struct protocol : body.get(JoinGroupRequest.PROTOCOLS)) {
            protocols.add(new Protocol(protocol.get(JoinGroupRequestProtocol.NAME),
                    protocol.get(JoinGroupRequestProtocol.METADATA)));
        }
        JoinRequest join = new JoinRequest(body.get(JoinGroupRequest.GROUP_ID), body.get(JoinGroupRequest.MEMBER_ID),
                body.get(JoinGroupRequest.GROUP_INSTANCE_ID), request.header().clientId(),
                GroupHandlers.clientHost(context), body.get(JoinGroupRequest.SESSION_TIMEOUT_MS),
                body.get(JoinGroupRequest.REBALANCE_TIMEOUT_MS), body.get(JoinGroupRequest.PROTOCOL_TYPE), protocols,
                request.apiVersion() >= MEMBER_ID_REQUIRED_VERSION_MIN);
        return coordinator.join(join, clockMs.getAsLong()).thenApply(JoinGroupHandler::response);
    }

    static Struct response(JoinResult result) {
        List<Struct> members = new ArrayList<>();
        for (JoinResult.JoinedMember member : result.members()) {
            members.add(new Struct(JoinGroupResponseMember.SCHEMA)
                    .set(JoinGroupResponseMember.MEMBER_ID, member.memberId())
                    .set(JoinGroupResponseMember.GROUP_INSTANCE_ID, member.groupInstanceId())
                    .set(JoinGroupResponseMember.METADATA, member.metadata()));
        }
        return new Struct(JoinGroupResponse.SCHEMA)
                .set(JoinGroupResponse.THROTTLE_TIME_MS, 0)
                .set(JoinGroupResponse.ERROR_CODE, result.error().code())
                .set(JoinGroupResponse.GENERATION_ID, result.generationId())
                .set(JoinGroupResponse.PROTOCOL_NAME, result.protocolName() == null ? "" : result.protocolName())
                .set(JoinGroupResponse.LEADER, result.leaderId() == null ? "" : result.leaderId())
                .set(JoinGroupResponse.MEMBER_ID, result.memberId())
                .set(JoinGroupResponse.MEMBERS, members);
    }
}
