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
import java.util.HashMap;
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
                        List.of("orders", "elsewhere", "nobody"))
                        .set(DescribeGroupsRequest.INCLUDE_AUTHORIZED_OPERATIONS, true));
        Struct withoutOperations = call(new DescribeGroupsHandler(coordinator), ApiKey.DESCRIBE_GROUPS, 3,
                new Struct(DescribeGroupsRequest.SCHEMA).set(DescribeGroupsRequest.GROUPS, List.of("orders"))
                        .set(DescribeGroupsRequest.INCLUDE_AUTHORIZED_OPERATIONS, false));
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
        // Kafka 4.4 without an authorizer: READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (3, 6, 8, 10, 11).
        assertEquals(0b1101_0100_1000, orders.get(DescribedGroup.AUTHORIZED_OPERATIONS));
        assertEquals(Integer.MIN_VALUE, withoutOperations.get(DescribeGroupsResponse.GROUPS).get(0)
                .get(DescribedGroup.AUTHORIZED_OPERATIONS));
        assertEquals(ErrorCode.NOT_COORDINATOR.code(), groups.get(1).get(DescribedGroup.ERROR_CODE));
        assertEquals(Integer.MIN_VALUE, groups.get(1).get(DescribedGroup.AUTHORIZED_OPERATIONS));
        assertEquals(ErrorCode.NONE.code(), groups.get(2).get(DescribedGroup.ERROR_CODE));
        assertEquals("Dead", groups.get(2).get(DescribedGroup.GROUP_STATE));

        Struct listed = call(new ListGroupsHandler(coordinator), ApiKey.LIST_GROUPS, 2,
                new Struct(ListGroupsRequest.SCHEMA));
        assertEquals(1, listed.get(ListGroupsResponse.GROUPS).size());
        assertEquals("orders", listed.get(ListGroupsResponse.GROUPS).get(0).get(ListedGroup.GROUP_ID));
        assertEquals("consumer", listed.get(ListGroupsResponse.GROUPS).get(0).get(ListedGroup.PROTOCOL_TYPE));
    }

    /** ListGroups v4 filters by state and v5 by type, ignoring case, as Kafka 4.4 does (checked on the wire). */
    @Test
    void listGroupsFiltersByStateAndType() throws Exception {
        JoinResult joined = coordinator.join(new JoinRequest("stable", "", null, "app", "/10.0.0.1", 10_000, 10_000,
                "consumer", List.of(new Protocol("range", new byte[] {9})), false), 0).join();
        coordinator.sync("stable", joined.generationId(), joined.memberId(), null,
                Map.of(joined.memberId(), new byte[] {1}), 0).join();
        coordinator.join(new JoinRequest("joining", "", null, "app", "/10.0.0.1", 10_000, 10_000,
                "consumer", List.of(new Protocol("range", new byte[] {9})), false), 0);

        assertEquals(Map.of("stable", "Stable", "joining", "CompletingRebalance"), listed(List.of(), List.of()));
        assertEquals(Map.of("stable", "Stable"), listed(List.of("STABLE"), List.of()));
        assertEquals(Map.of("joining", "CompletingRebalance"), listed(List.of("completingrebalance", "Empty"),
                List.of("Classic")));
        assertEquals(Map.of(), listed(List.of("Dead"), List.of()));
        assertEquals(Map.of(), listed(List.of(), List.of("consumer", "share")));
        assertEquals(Map.of(), listed(List.of(), List.of("no-such-type")));
    }

    private Map<String, String> listed(List<String> states, List<String> types) throws Exception {
        Struct response = call(new ListGroupsHandler(coordinator), ApiKey.LIST_GROUPS, 5,
                new Struct(ListGroupsRequest.SCHEMA).set(ListGroupsRequest.STATES_FILTER, states)
                        .set(ListGroupsRequest.TYPES_FILTER, types));
        Map<String, String> stateByGroup = new HashMap<>();
        for (Struct group : response.get(ListGroupsResponse.GROUPS)) {
            assertEquals("classic", group.get(ListedGroup.GROUP_TYPE));
            stateByGroup.put(group.get(ListedGroup.GROUP_ID), group.get(ListedGroup.GROUP_STATE));
        }
        return stateByGroup;
    }

    /**
     * After a restart the coordinator's memory is empty, but committed offsets remain: groups this broker coordinates
     * that have offsets in its replicas are listed Empty, without a protocol type, as Kafka lists such groups; a
     * group held in memory is listed once; a group another broker coordinates is left to that broker.
     */
    @Test
    void groupsWithOnlyCommittedOffsetsAreListedEmpty() throws Exception {
        FakeMetadataService metadata = new FakeMetadataService().withBrokers(1).withTopic("orders", 1, 1);
        FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
        dev.cairn.broker.cluster.TopicPartition tp = new dev.cairn.broker.cluster.TopicPartition("orders", 0);
        partitions.leadLocally(tp);
        for (String group : List.of("offsets-only", "stable")) {
            partitions.apply(tp, new dev.cairn.broker.partition.Command.CommitOffset(group, 5, 3, null, 1L));
        }
        JoinResult joined = coordinator.join(new JoinRequest("stable", "", null, "app", "/10.0.0.1", 10_000, 10_000,
                "consumer", List.of(new Protocol("range", new byte[] {9})), false), 0).join();
        coordinator.sync("stable", joined.generationId(), joined.memberId(), null,
                Map.of(joined.memberId(), new byte[] {1}), 0).join();

        Struct response = call(new ListGroupsHandler(coordinator, metadata, partitions),
                ApiKey.LIST_GROUPS, 5, new Struct(ListGroupsRequest.SCHEMA).set(ListGroupsRequest.STATES_FILTER,
                        List.of()).set(ListGroupsRequest.TYPES_FILTER, List.of()));
        Map<String, String> listed = new HashMap<>();
        for (Struct group : response.get(ListGroupsResponse.GROUPS)) {
            listed.put(group.get(ListedGroup.GROUP_ID), group.get(ListedGroup.GROUP_STATE) + "/"
                    + group.get(ListedGroup.PROTOCOL_TYPE));
        }
        assertEquals(Map.of("stable", "Stable/consumer", "offsets-only", "Empty/"), listed);

        metadata.setLocalNodeId(2);
        Struct elsewhere = call(new ListGroupsHandler(coordinator, metadata, partitions),
                ApiKey.LIST_GROUPS, 5, new Struct(ListGroupsRequest.SCHEMA).set(ListGroupsRequest.STATES_FILTER,
                        List.of("Empty")).set(ListGroupsRequest.TYPES_FILTER, List.of()));
        assertEquals(List.of(), elsewhere.get(ListGroupsResponse.GROUPS), "broker 1 coordinates offsets-only");

        // A partition whose leader cannot be read: the answer is retriable, not a list missing its groups.
        metadata.setLocalNodeId(1);
        partitions.ledElsewhere(tp, 2);
        Struct unreadable = call(new ListGroupsHandler(coordinator, metadata, partitions), ApiKey.LIST_GROUPS, 5,
                new Struct(ListGroupsRequest.SCHEMA).set(ListGroupsRequest.STATES_FILTER, List.of())
                        .set(ListGroupsRequest.TYPES_FILTER, List.of()));
        assertEquals(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code(), unreadable.get(ListGroupsResponse.ERROR_CODE));
    }
}
