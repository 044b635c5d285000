package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.group.GroupConfig;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.JoinGroupRequest;
import dev.cairn.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import dev.cairn.protocol.message.JoinGroupResponse;
import dev.cairn.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JoinGroup v0-5 over the coordinator: the version decides whether a new member must first learn its id
 * (MEMBER_ID_REQUIRED from v4, KIP-394), v0's missing rebalance timeout falls back to the session timeout, and the
 * client id and host reach DescribeGroups.
 */
class JoinGroupHandlerTest {
    private final AtomicInteger ids = new AtomicInteger();
    private final GroupCoordinator coordinator = new GroupCoordinator(new GroupConfig(6_000, 60_000, 0, 10),
            () -> Integer.toString(ids.incrementAndGet()), groupId -> true);
    private final JoinGroupHandler handler = new JoinGroupHandler(coordinator, () -> 1_000L);

    private Struct join(int version, String memberId) throws Exception {
        Struct body = new Struct(JoinGroupRequest.SCHEMA)
                .set(JoinGroupRequest.GROUP_ID, "orders")
                .set(JoinGroupRequest.SESSION_TIMEOUT_MS, 10_000)
                .set(JoinGroupRequest.MEMBER_ID, memberId)
                .set(JoinGroupRequest.PROTOCOL_TYPE, "consumer")
                .set(JoinGroupRequest.PROTOCOLS, List.of(new Struct(JoinGroupRequestProtocol.SCHEMA)
                        .set(JoinGroupRequestProtocol.NAME, "range")
                        .set(JoinGroupRequestProtocol.METADATA, new byte[] {1, 2})));
        RequestFrame frame = new RequestFrame(new RequestHeader(ApiKey.JOIN_GROUP.id(), (short) version, 7,
                "app-1"), ApiKey.JOIN_GROUP, body);
        return handler.handle(new RequestContext(1, "/127.0.0.1:50000"), frame).get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void beforeV4ANewMemberJoinsAtOnce(int version) throws Exception {
        Struct response = join(version, "");
        assertEquals(ErrorCode.NONE.code(), response.get(JoinGroupResponse.ERROR_CODE));
        assertEquals(1, response.get(JoinGroupResponse.GENERATION_ID));
        assertEquals("range", response.get(JoinGroupResponse.PROTOCOL_NAME));
        String memberId = response.get(JoinGroupResponse.MEMBER_ID);
        assertTrue(memberId.startsWith("app-1-"), memberId);
        assertEquals(memberId, response.get(JoinGroupResponse.LEADER));
        Struct member = response.get(JoinGroupResponse.MEMBERS).get(0);
        assertEquals(memberId, member.get(JoinGroupResponseMember.MEMBER_ID));
        assertEquals(List.of((byte) 1, (byte) 2), List.of(member.get(JoinGroupResponseMember.METADATA)[0],
                member.get(JoinGroupResponseMember.METADATA)[1]));
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5})
    void fromV4ANewMemberIsToldItsIdFirst(int version) throws Exception {
        Struct first = join(version, "");
        assertEquals(ErrorCode.MEMBER_ID_REQUIRED.code(), first.get(JoinGroupResponse.ERROR_CODE));
        assertEquals(-1, first.get(JoinGroupResponse.GENERATION_ID));
        assertEquals("", first.get(JoinGroupResponse.PROTOCOL_NAME));
        Struct second = join(version, first.get(JoinGroupResponse.MEMBER_ID));
        assertEquals(ErrorCode.NONE.code(), second.get(JoinGroupResponse.ERROR_CODE));
        assertEquals(first.get(JoinGroupResponse.MEMBER_ID), second.get(JoinGroupResponse.MEMBER_ID));
    }

    @Test
    void clientIdAndHostWithoutPortAreDescribed() throws Exception {
        join(3, "");
        var member = coordinator.describe("orders").members().get(0);
        assertEquals("app-1", member.clientId());
        assertEquals("/127.0.0.1", member.clientHost());
    }
}
