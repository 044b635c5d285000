package dev.cairn.broker.group;

import dev.cairn.protocol.ErrorCode;
import java.util.List;

/**
 * The answer to a JoinGroup: on success the generation, the chosen protocol, the leader and, for the leader only,
 * every member with its metadata for that protocol, from which the leader computes the assignment.
 */
public record JoinResult(ErrorCode error, int generationId, String protocolName, String leaderId, String memberId,
        List<JoinedMember> members) {

    /** No generation: the value Kafka sends with an error. */
    public static final int NO_GENERATION = -1;

    public JoinResult {
        members = List.copyOf(members);
    }

    /** One member as the leader sees it. */
    public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
    }

    public static JoinResult error(ErrorCode error, String memberId) {
        return new JoinResult(error, NO_GENERATION, "", "", memberId, List.of());
    }
}
