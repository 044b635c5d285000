package dev.cairn.broker.group;

import java.util.List;

/**
 * A group as DescribeGroups shows it. As in Kafka, members carry their metadata and assignment only while the
 * group is Stable; in other states those are empty and the protocol name is empty.
 */
public record GroupDescription(String groupId, GroupState state, String protocolType, String protocolName,
        List<MemberDescription> members) {

    public GroupDescription {
        members = List.copyOf(members);
    }

    /** One member of a described group. */
    public record MemberDescription(String memberId, String groupInstanceId, String clientId, String clientHost,
            byte[] metadata, byte[] assignment) {
    }
}
