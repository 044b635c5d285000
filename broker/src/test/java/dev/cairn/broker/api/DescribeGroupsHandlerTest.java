package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.group.GroupConfig;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.JoinRequest;
import dev.cairn.broker.group.JoinResult;
import dev.cairn.broker.group.Protocol;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.DescribeGroupsRequest;
import dev.cairn.protocol.message.DescribeGroupsResponse;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroup;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroupMember;
import dev.cairn.protocol.message.ListGroupsRequest;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.ListGroupsResponse.ListedGroup;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * DescribeGroups and ListGroups over the coordinator: a Stable group with its protocol, members, metadata and
 * assignment; a group another broker coordinates is NOT_COORDINATOR; an unknown one is Dead without error (Kafka
 * below DescribeGroups v6).
 */
class DescribeGroupsHandlerTest {
    private final GroupCoordinator coordinator = new GroupCoordinator(new GroupConfig(6_000, 60_000, 0, 10),
            () -> "1", groupId -> !groupId.equals("elsewhere"));

    private static Struct call(RequestHandler handler, ApiKey api, int version, Struct body) throws Exception {
        RequestFrame frame = new RequestFrame(new RequestHeader(api.id(), (short) version, 1, "admin"), api, body);
        return handler.handle(new RequestContext(1, "/127.0.0.1:1"), frame).get(10, TimeUnit.SECONDS);
    }

    @Test
    void describesStableGroupsAndRoutesOthers() throws Exception {
        JoinResult joined = coordinator.join(new JoinRequest("orders", "", null, "app", "/10.0.0.1", 10_000, 10_000,
                "consumer", List.of(new Protocol("range", new byte[] {9})), false), 0).join();
        coordinator.sync("orders", joined.generationId(), joined.memberId(), null,
                Map.of(joined.memberId(), new byte[] {4, 2}), 0).join();
        Struct response = call(new DescribeGroupsHandler(coordinator), ApiKey.DESCRIBE_GROUPS, 3,
                new Struct(DescribeGroupsRequest.SCHEMA).set(DescribeGroupsRequest.GROUPS,
                        List.of("orders", "elsewhere", "nobody")));
        List<Struct> groups = response.get(DescribeGroupsResponse.GROUPS);
        Struct orders = groups.get(0);
        assertEquals(ErrorCode.NONE.code(), orders.get(DescribedGroup.ERROR_CODE));
        assertEquals("Stable", orders.get(DescribedGroup.GROUP_STATE));
        assertEquals("consumer", orders.get(DescribedGroup.PROTOCOL_TYPE));
        assertEquals("range", orders.get(DescribedGroup.PROTOCOL_DATA));
        Struct member = orders.get(DescribedGroup.MEMBERS).get(0);
        assertEquals(joined.memberId(), member.get(DescribedGroupMember.MEMBER_ID));
        assertEquals("app", member.get(DescribedGroupMember.CLIENT_ID));
        assertEquals("/10.0.0.1", member.get(DescribedGroupMember.CLIENT_HOST));
        assertArrayEquals(new byte[] {9}, member.get(DescribedGroupMember.MEMBER_METADATA));
        assertArrayEquals(new byte[] {4, 2}, member.get(DescribedGroupMember.MEMBER_ASSIGNMENT));
        assertEquals(ErrorCode.NOT_COORDINATOR.code(), groups.get(1).get(DescribedGroup.ERROR_CODE));
        assertEquals(ErrorCode.NONE.code(), groups.get(2).get(DescribedGroup.ERROR_CODE));
        assertEquals("Dead", groups.get(2).get(DescribedGroup.GROUP_STATE));

        Struct listed = call(new ListGroupsHandler(coordinator), ApiKey.LIST_GROUPS, 2,
                new Struct(ListGroupsRequest.SCHEMA));
        assertEquals(1, listed.get(ListGroupsResponse.GROUPS).size());
        assertEquals("orders", listed.get(ListGroupsResponse.GROUPS).get(0).get(ListedGroup.GROUP_ID));
        assertEquals("consumer", listed.get(ListGroupsResponse.GROUPS).get(0).get(ListedGroup.PROTOCOL_TYPE));
    }
}
