package dev.cairn.broker.api;

import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupDescription;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeGroupsRequest;
import dev.cairn.protocol.message.DescribeGroupsResponse;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroup;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroupMember;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeGroups (key 15), versions 0-3: each group's state, protocol and members. A group another broker
 * coordinates is answered NOT_COORDINATOR so Admin asks that broker; a group nobody knows is Dead with no error,
 * as Kafka answers below v6. A client that asks for authorized operations (v3) is told every group operation, as
 * Kafka without an authorizer tells it, on each group answered without an error.
 */
public final class DescribeGroupsHandler implements RequestHandler {
    private final GroupCoordinator coordinator;

    public DescribeGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> groups = new ArrayList<>();
        boolean askedForOperations = request.body().get(DescribeGroupsRequest.INCLUDE_AUTHORIZED_OPERATIONS);
        for (String groupId : request.body().get(DescribeGroupsRequest.GROUPS)) {
            Struct group = context.session().allowedOnGroup(AclOperation.DESCRIBE, groupId) ? describe(groupId)
                    : errorGroup(new Struct(DescribedGroup.SCHEMA).set(DescribedGroup.GROUP_ID, groupId),
                            ErrorCode.GROUP_AUTHORIZATION_FAILED);
            if (group.get(DescribedGroup.ERROR_CODE) == ErrorCode.NONE.code()) {
                group.set(DescribedGroup.AUTHORIZED_OPERATIONS,
                        AuthorizedOperations.group(askedForOperations, context.session(), groupId));
            }
            groups.add(group);
        }
        return CompletableFuture.completedFuture(new Struct(DescribeGroupsResponse.SCHEMA)
                .set(DescribeGroupsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeGroupsResponse.GROUPS, groups));
    }

    private Struct describe(String groupId) {
        Struct group = new Struct(DescribedGroup.SCHEMA).set(DescribedGroup.GROUP_ID, groupId);
        if (groupId == null || groupId.isEmpty()) {
            return errorGroup(group, ErrorCode.INVALID_GROUP_ID);
        }
        if (!coordinator.ownsGroup(groupId)) {
            return errorGroup(group, ErrorCode.NOT_COORDINATOR);
        }
        GroupDescription description = coordinator.describe(groupId);
        List<Struct> members = new ArrayList<>();
        for (GroupDescription.MemberDescription member : description.members()) {
            members.add(new Struct(DescribedGroupMember.SCHEMA)
                    .set(DescribedGroupMember.MEMBER_ID, member.memberId())
                    .set(DescribedGroupMember.CLIENT_ID, member.clientId())
                    .set(DescribedGroupMember.CLIENT_HOST, member.clientHost())
                    .set(DescribedGroupMember.MEMBER_METADATA, member.metadata())
                    .set(DescribedGroupMember.MEMBER_ASSIGNMENT, member.assignment()));
        }
        return group.set(DescribedGroup.ERROR_CODE, ErrorCode.NONE.code())
                .set(DescribedGroup.GROUP_STATE, description.state().displayName())
                .set(DescribedGroup.PROTOCOL_TYPE, description.protocolType())
                .set(DescribedGroup.PROTOCOL_DATA, description.protocolName())
                .set(DescribedGroup.MEMBERS, members);
    }

    private static Struct errorGroup(Struct group, ErrorCode error) {
        return group.set(DescribedGroup.ERROR_CODE, error.code())
                .set(DescribedGroup.GROUP_STATE, "")
                .set(DescribedGroup.PROTOCOL_TYPE, "")
                .set(DescribedGroup.PROTOCOL_DATA, "")
                .set(DescribedGroup.MEMBERS, List.of());
    }
}
