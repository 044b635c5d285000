package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand.CompleteReassignment;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.DeleteTopic;
import dev.cairn.broker.cluster.MetadataCommand.ReassignPartition;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Partition reassignments as the metadata group applies them: through the codec, into snapshots, and their ends. */
class ReassignmentRulesTest {
    private static final UUID TOPIC_ID = UUID.nameUUIDFromBytes("moving".getBytes());
    private static final TopicPartition TP = new TopicPartition("moving", 0);

    private final List<MetadataChange> published = new ArrayList<>();
    private final ClusterMetadata metadata = new ClusterMetadata(published::add);
    private long raftIndex;

    private MetadataResult apply(MetadataCommand command) {
        MetadataCommand decoded = MetadataCodec.decodeCommand(ByteBuffer.wrap(MetadataCodec.encode(command)));
        assertEquals(command, decoded);
        return metadata.apply(++raftIndex, decoded);
    }

    @BeforeEach
    void fourBrokersAndATopicOnThree() {
        for (int id = 1; id <= 4; id++) {
            apply(new RegisterBroker(new BrokerInfo(id, "127.0.0." + id, 9092, "127.0.0." + id + ":9093")));
        }
        apply(new CreateTopic(new TopicInfo("moving", TOPIC_ID, List.of(List.of(1, 2, 3), List.of(2, 3, 1)),
                Map.of())));
    }

    private List<Integer> replicas() {
        return metadata.image().topics().get("moving").replicas().get(0);
    }

    @Test
    void aReassignmentListsTheTargetThenTheLeavingUntilTheLeaderCompletesIt() {
        assertEquals(MetadataResult.OK, apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(4, 2, 3))));
        assertEquals(List.of(4, 2, 3, 1), replicas());
        PartitionReassignment ongoing = metadata.image().reassignment(TP).orElseThrow();
        assertEquals(List.of(4), ongoing.adding());
        assertEquals(List.of(1), ongoing.removing(replicas()));
        assertInstanceOf(MetadataCommand.ReassignPartition.class, published.get(published.size() - 1).cause());

        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image().reassignments(), restored.reassignments());
        assertEquals(metadata.image().topics(), restored.topics());

        MetadataResult stale = apply(new CompleteReassignment("moving", TOPIC_ID, 0, List.of(4, 2, 1)));
        assertEquals(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, ((MetadataResult.Rejected) stale).error());
        assertEquals(MetadataResult.OK, apply(new CompleteReassignment("moving", TOPIC_ID, 0, List.of(4, 2, 3))));
        assertEquals(List.of(4, 2, 3), replicas());
        assertTrue(metadata.image().reassignments().isEmpty());
        assertEquals(List.of(2, 3, 1), metadata.image().topics().get("moving").replicas().get(1));
    }

    @Test
    void theSameBrokersInAnotherOrderOnlyReorder() {
        assertEquals(MetadataResult.OK, apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(3, 1, 2))));
        assertEquals(List.of(3, 1, 2), replicas());
        assertTrue(metadata.image().reassignments().isEmpty());
    }

    @Test
    void cancellingReturnsToTheOriginalReplicas() {
        MetadataResult none = apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of()));
        assertEquals(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, ((MetadataResult.Rejected) none).error());
        apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(4, 2, 3)));
        apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(4, 1, 3)));
        PartitionReassignment changed = metadata.image().reassignment(TP).orElseThrow();
        assertEquals(List.of(1, 2, 3), changed.original());
        assertEquals(List.of(4, 1, 3, 2), replicas());
        assertEquals(MetadataResult.OK, apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of())));
        PartitionReassignment back = metadata.image().reassignment(TP).orElseThrow();
        assertEquals(List.of(1, 2, 3), back.target());
        assertEquals(List.of(4), back.removing(replicas()));
        assertEquals(MetadataResult.OK, apply(new CompleteReassignment("moving", TOPIC_ID, 0, List.of(1, 2, 3))));
        assertEquals(List.of(1, 2, 3), replicas());
    }

    @Test
    void badTargetsAreRefusedAndChangeNothing() {
        MetadataResult unknownBroker = apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(1, 2, 9)));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT, ((MetadataResult.Rejected) unknownBroker).error());
        MetadataResult twice = apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(1, 1, 4)));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT, ((MetadataResult.Rejected) twice).error());
        MetadataResult noPartition = apply(new ReassignPartition("moving", TOPIC_ID, 7, List.of(1, 2, 4)));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ((MetadataResult.Rejected) noPartition).error());
        MetadataResult otherId = apply(new ReassignPartition("moving", UUID.randomUUID(), 0, List.of(1, 2, 4)));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ((MetadataResult.Rejected) otherId).error());
        assertEquals(List.of(1, 2, 3), replicas());
        assertTrue(metadata.image().reassignments().isEmpty());
    }

    @Test
    void deletingTheTopicEndsItsReassignments() {
        apply(new ReassignPartition("moving", TOPIC_ID, 0, List.of(4, 2, 3)));
        apply(new DeleteTopic("moving"));
        assertTrue(metadata.image().reassignments().isEmpty());
        assertNull(metadata.image().topics().get("moving"));
    }
}
