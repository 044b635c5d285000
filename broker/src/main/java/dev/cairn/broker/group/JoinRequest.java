package dev.cairn.broker.group;

import java.util.List;

/**
 * A JoinGroup request in domain terms.
 *
 * @param groupId the group
 * @param memberId the member's id, empty for a member joining for the first time
 * @param groupInstanceId the static member's instance id ({@code group.instance.id}), or null for a dynamic member
 * @param clientId the client's id from the request header, for DescribeGroups
 * @param clientHost the client's address, for DescribeGroups
 * @param sessionTimeoutMs how long the member may go without a heartbeat
 * @param rebalanceTimeoutMs how long the member may take to rejoin during a rebalance; -1 (JoinGroup v0) means
 *     the session timeout
 * @param protocolType the kind of group, {@code consumer} for consumers
 * @param protocols the protocols the member supports, most preferred first
 * @param requireKnownMemberId whether a new dynamic member must first be given its id with MEMBER_ID_REQUIRED
 *     (JoinGroup v4+, KIP-394)
 */
public record JoinRequest(String groupId, String memberId, String groupInstanceId, String clientId,
        String clientHost, int sessionTimeoutMs, int rebalanceTimeoutMs, String protocolType,
        List<Protocol> protocols, boolean requireKnownMemberId) {

    public JoinRequest {
        protocols = List.copyOf(protocols);
    }
}
