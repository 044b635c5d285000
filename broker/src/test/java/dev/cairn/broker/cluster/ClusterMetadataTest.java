package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand.AllocateProducerIds;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.DeleteTopic;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ClusterMetadataTest {
    private final List<MetadataChange> published = new ArrayList<>();
    private final ClusterMetadata metadata = new ClusterMetadata(published::add);
    private long raftIndex;

    private MetadataResult apply(MetadataCommand command) {
        // Every command goes through the codec, as it does through the Raft log.
        MetadataCommand decoded = MetadataCodec.decodeCommand(ByteBuffer.wrap(MetadataCodec.encode(command)));
        assertEquals(command, decoded);
        MetadataResult result = metadata.apply(++raftIndex, decoded);
        assertEquals(result, MetadataCodec.decodeResult(ByteBuffer.wrap(MetadataCodec.encode(result))));
        return result;
    }

    private static TopicInfo topic(String name, int partitions) {
        return new TopicInfo(name, UUID.nameUUIDFromBytes(name.getBytes()),
                ReplicaAssigner.assign(List.of(1, 2, 3), partitions, 3, name.hashCode()), Map.of("retention.ms", "1"));
    }

    @Test
    void brokersTopicsAndProducerIdsRoundTripThroughSnapshots() {
        apply(new RegisterBroker(new BrokerInfo(1, "127.0.0.1", 9092, "127.0.0.1:9093")));
        apply(new RegisterBroker(new BrokerInfo(2, "127.0.0.2", 9092, "127.0.0.2:9093")));
        assertEquals(MetadataResult.OK, apply(new CreateTopic(topic("orders", 6))));
        MetadataResult.ProducerIds first = assertInstanceOf(MetadataResult.ProducerIds.class,
                apply(new AllocateProducerIds(1)));
        MetadataResult.ProducerIds second = assertInstanceOf(MetadataResult.ProducerIds.class,
                apply(new AllocateProducerIds(2)));
        assertEquals(first.firstProducerId() + first.count(), second.firstProducerId());

        MetadataImage image = metadata.image();
        assertEquals(5, image.appliedRaftIndex());
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(MetadataCodec.encodeSnapshot(image)));
        assertEquals(image, restored);
        assertEquals(5, published.size());
    }

    @Test
    void partitionStatesAreFencedByEpochAndSurviveSnapshots() {
        TopicInfo orders = topic("orders", 2);
        apply(new CreateTopic(orders));
        TopicPartition tp = new TopicPartition("orders", 1);
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.UpdatePartitionState(orders.topicId(), 1,
                new PartitionState(2, 5, List.of(2, 3)))));
        assertEquals(ErrorCode.FENCED_LEADER_EPOCH, rejected(apply(new MetadataCommand.UpdatePartitionState(
                orders.topicId(), 1, new PartitionState(3, 4, List.of(3))))));
        assertEquals(new PartitionState(2, 5, List.of(2, 3)), metadata.image().partitionState(tp).orElseThrow());
        assertEquals(ErrorCode.FENCED_LEADER_EPOCH, rejected(apply(new MetadataCommand.UpdatePartitionState(
                UUID.randomUUID(), 0, new PartitionState(1, 9, List.of(1))))));
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image(), restored);
        apply(new DeleteTopic("orders"));
        assertTrue(metadata.image().partitionState(tp).isEmpty(), "deleting a topic forgets its leaders");
    }

    @Test
    void createRejectsDuplicatesCollisionsAndBadNames() {
        apply(new CreateTopic(topic("a.b", 1)));
        assertEquals(ErrorCode.TOPIC_ALREADY_EXISTS, rejected(apply(new CreateTopic(topic("a.b", 1)))));
        assertEquals(ErrorCode.INVALID_TOPIC_EXCEPTION, rejected(apply(new CreateTopic(topic("a_b", 1)))));
        assertEquals(ErrorCode.INVALID_TOPIC_EXCEPTION, rejected(apply(new CreateTopic(topic("bad name", 1)))));
        assertEquals(ErrorCode.INVALID_TOPIC_EXCEPTION, rejected(apply(new CreateTopic(topic("..", 1)))));
        assertEquals(ErrorCode.INVALID_TOPIC_EXCEPTION, rejected(apply(new CreateTopic(topic("x".repeat(250), 1)))));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, rejected(apply(new DeleteTopic("missing"))));
        assertEquals(MetadataResult.OK, apply(new DeleteTopic("a.b")));
        assertTrue(metadata.image().topics().isEmpty());
    }

    private static ErrorCode rejected(MetadataResult result) {
        return assertInstanceOf(MetadataResult.Rejected.class, result).error();
    }

    @Test
    void assignmentPutsReplicasOnDistinctBrokersAndSpreadsLeaders() {
        List<Integer> brokers = List.of(3, 1, 2);
        List<List<Integer>> assignment = ReplicaAssigner.assign(brokers, 6, 3, 7);
        Map<Integer, Integer> leaders = new HashMap<>();
        for (List<Integer> replicas : assignment) {
            assertEquals(3, replicas.stream().distinct().count(), replicas.toString());
            leaders.merge(replicas.get(0), 1, Integer::sum);
        }
        assertEquals(Map.of(1, 2, 2, 2, 3, 2), leaders);
        for (List<Integer> replicas : ReplicaAssigner.assign(List.of(1, 2, 3, 4, 5), 20, 2, 0)) {
            assertEquals(2, replicas.stream().distinct().count(), replicas.toString());
        }
    }

    @Test
    void partitionGroupIdsAreStableAndDistinct() {
        UUID topicId = UUID.nameUUIDFromBytes(new byte[] {1});
        assertEquals(PartitionGroups.groupId(topicId, 0), PartitionGroups.groupId(topicId, 0));
        assertTrue(!PartitionGroups.groupId(topicId, 0).equals(PartitionGroups.groupId(topicId, 1)));
    }
}
