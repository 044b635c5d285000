package dev.cairn.broker.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Raft group ids. A partition's group id is derived from its topic id and partition number, so every broker
 * computes the same id without coordination, and a topic re-created under the same name (a new topic id)
 * never meets the Raft state of its predecessor.
 */
public final class PartitionGroups {
    /** The metadata group's fixed id. */
    public static final UUID METADATA_GROUP_ID = UUID.nameUUIDFromBytes(
            "cairn-metadata".getBytes(StandardCharsets.UTF_8));

    private PartitionGroups() {
    }

    public static UUID groupId(UUID topicId, int partition) {
        ByteBuffer bytes = ByteBuffer.allocate(16 + 4);
        bytes.putLong(topicId.getMostSignificantBits()).putLong(topicId.getLeastSignificantBits()).putInt(partition);
        return UUID.nameUUIDFromBytes(bytes.array());
    }
}
