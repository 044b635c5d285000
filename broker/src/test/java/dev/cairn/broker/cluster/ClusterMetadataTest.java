package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand.AddPartitions;
import dev.cairn.broker.cluster.MetadataCommand.AllocateProducerIds;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.DeleteTopic;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import dev.cairn.broker.config.Limits;
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

    /** SCRAM credentials are replicated as commands, kept in snapshots, and removed per mechanism. */
    @Test
    void scramCredentialsSurviveCodecAndSnapshot() {
        byte[] credential = {1, 2, 3, 4};
        MetadataCommand alter = new MetadataCommand.AlterScramCredentials(List.of(), List.of(
                new MetadataCommand.ScramUpsertion("alice", (byte) 2, credential),
                new MetadataCommand.ScramUpsertion("alice", (byte) 1, new byte[] {9})));
        MetadataCommand decoded = MetadataCodec.decodeCommand(ByteBuffer.wrap(MetadataCodec.encode(alter)));
        assertEquals(MetadataResult.OK, apply(decoded));
        org.junit.jupiter.api.Assertions.assertArrayEquals(credential, metadata.image().scramCredentials()
                .get("alice", (byte) 2).orElseThrow());
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image().scramCredentials(), restored.scramCredentials());
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.AlterScramCredentials(
                List.of(new MetadataCommand.ScramDeletion("alice", (byte) 2)), List.of())));
        assertTrue(metadata.image().scramCredentials().get("alice", (byte) 2).isEmpty());
        assertEquals(java.util.Set.of((byte) 1), metadata.image().scramCredentials().mechanismsByUser().get("alice"));
    }

    /** ACL bindings are a set by content, replicated as commands and kept in snapshots. */
    @Test
    void aclBindingsSurviveCodecAndSnapshot() {
        byte[] first = {1, 2, 3};
        byte[] second = {4, 5};
        MetadataCommand add = new MetadataCommand.AlterAcls(List.of(), List.of(first, second, first.clone()));
        assertEquals(MetadataResult.OK, apply(MetadataCodec.decodeCommand(ByteBuffer.wrap(MetadataCodec.encode(add)))));
        assertEquals(2, metadata.image().acls().size());
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image().acls(), restored.acls());
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.AlterAcls(List.of(first.clone()), List.of())));
        assertEquals(1, metadata.image().acls().size());
        org.junit.jupiter.api.Assertions.assertArrayEquals(second, metadata.image().acls().encoded().get(0));
    }

    /** The first proposed cluster id is the cluster's; later proposals change nothing; snapshots keep it. */
    @Test
    void theFirstProposedClusterIdIsTheClustersAndSnapshotsKeepIt() {
        assertEquals(null, metadata.image().clusterId());
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.ProposeClusterId("first")));
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.ProposeClusterId("second")));
        assertEquals("first", metadata.image().clusterId());
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image(), restored);
        // A snapshot written before cluster ids were agreed (it ends after the dead brokers) reads with none.
        byte[] withId = MetadataCodec.encodeSnapshot(metadata.image());
        // The flag, the id, and the (empty) SCRAM credential, ACL, broker-listener and reassignment counts later
        // snapshots end with, the (empty) dynamic broker defaults, and the engine section (the next Raft group id,
        // and no numbered topics or engine addresses).
        int idBytes = 1 + 2 + "first".length() + 4 + 4 + 4 + 4 + 4 + 8 + 4 + 4;
        MetadataImage old = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(withId, 0, withId.length - idBytes));
        assertEquals(null, old.clusterId());
        assertEquals(metadata.image().appliedRaftIndex(), old.appliedRaftIndex());
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

    private void registerBrokers(int count) {
        for (int id = 1; id <= count; id++) {
            apply(new RegisterBroker(new BrokerInfo(id, "127.0.0." + id, 9092, "127.0.0." + id + ":9093")));
        }
    }

    @Test
    void addPartitionsAppendsReplicasKeepsTheTopicAndSurvivesSnapshots() {
        registerBrokers(3);
        TopicInfo orders = topic("orders", 2);
        apply(new CreateTopic(orders));
        List<List<Integer>> added = List.of(List.of(3, 1, 2), List.of(1, 2, 3));
        AddPartitions add = new AddPartitions("orders", orders.topicId(), 2, added);

        assertEquals(MetadataResult.OK, apply(add));

        TopicInfo grown = metadata.image().topic("orders").orElseThrow();
        assertEquals(4, grown.partitionCount());
        assertEquals(orders.replicas(), grown.replicas().subList(0, 2), "existing partitions are untouched");
        assertEquals(added, grown.replicas().subList(2, 4));
        assertEquals(orders.topicId(), grown.topicId());
        assertEquals(orders.configs(), grown.configs());
        assertEquals(add, published.get(published.size() - 1).cause(), "listeners hear of the added partitions");
        assertEquals(MetadataResult.OK, apply(new MetadataCommand.UpdatePartitionState(orders.topicId(), 3,
                new PartitionState(1, 1, List.of(1, 2, 3)))), "a new partition's leader is accepted");
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image(), restored);
    }

    /** Brokers announce their listeners (issue 21); commands and snapshots keep them; older entries have none. */
    @Test
    void brokerListenersSurviveCodecAndSnapshots() {
        BrokerInfo twoListeners = new BrokerInfo(1, "internal.host", 9092, "raft1:9093", List.of(
                new BrokerInfo.Endpoint("internal", "internal.host", 9092),
                new BrokerInfo.Endpoint("EXTERNAL", "broker1.example.com", 19092)));
        assertEquals(MetadataResult.OK, apply(new RegisterBroker(twoListeners)));
        assertEquals(MetadataResult.OK, apply(new RegisterBroker(new BrokerInfo(2, "h2", 9092, "raft2:9093"))));

        BrokerInfo stored = metadata.image().brokers().get(1);
        assertEquals("broker1.example.com", stored.endpoint("external").orElseThrow().host());
        assertEquals(19092, stored.endpoint("EXTERNAL").orElseThrow().port());
        assertEquals(9092, stored.endpoint("INTERNAL").orElseThrow().port());
        assertTrue(stored.endpoint("OTHER").isEmpty(), "no listener of that name");
        assertEquals("h2", metadata.image().brokers().get(2).endpoint("EXTERNAL").orElseThrow().host(),
                "a broker that announced no listeners serves every listener at its one address");
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image(), restored);
    }

    /** IncrementalAlterConfigs and AlterConfigs (issue 19): applied in log order, kept in snapshots. */
    @Test
    void topicConfigsChangeIncrementallyOrWhollyAndSurviveSnapshots() {
        registerBrokers(3);
        TopicInfo orders = topic("orders", 2);
        apply(new CreateTopic(orders));
        MetadataCommand.AlterTopicConfigs incremental = new MetadataCommand.AlterTopicConfigs("orders",
                orders.topicId(), false, Map.of("segment.ms", "60000"), java.util.Set.of("retention.ms"));

        assertEquals(MetadataResult.OK, apply(incremental));
        assertEquals(Map.of("segment.ms", "60000"), metadata.image().topic("orders").orElseThrow().configs());
        assertEquals(incremental, published.get(published.size() - 1).cause());
        assertEquals(orders.replicas(), metadata.image().topic("orders").orElseThrow().replicas());

        assertEquals(MetadataResult.OK, apply(new MetadataCommand.AlterTopicConfigs("orders", orders.topicId(), true,
                Map.of("retention.bytes", "1000"), java.util.Set.of())));
        assertEquals(Map.of("retention.bytes", "1000"), metadata.image().topic("orders").orElseThrow().configs());

        MetadataResult stale = apply(new MetadataCommand.AlterTopicConfigs("orders", UUID.randomUUID(), false,
                Map.of("segment.ms", "1"), java.util.Set.of()));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ((MetadataResult.Rejected) stale).error());
        assertEquals(Map.of("retention.bytes", "1000"), metadata.image().topic("orders").orElseThrow().configs());
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image())));
        assertEquals(metadata.image(), restored);
    }

    @Test
    void addPartitionsAppliedTwiceAddsThemOnce() {
        registerBrokers(3);
        TopicInfo orders = topic("orders", 1);
        apply(new CreateTopic(orders));
        AddPartitions add = new AddPartitions("orders", orders.topicId(), 1, List.of(List.of(2, 3, 1)));
        assertEquals(MetadataResult.OK, apply(add));
        TopicInfo once = metadata.image().topic("orders").orElseThrow();

        assertEquals(MetadataResult.OK, apply(add), "a retried proposal that was applied already succeeds");

        assertEquals(once, metadata.image().topic("orders").orElseThrow());
        assertEquals(ErrorCode.INVALID_PARTITIONS, rejected(apply(new AddPartitions("orders", orders.topicId(), 1,
                List.of(List.of(1, 2, 3))))), "a different proposal from the same stale image is refused");
    }

    @Test
    void addPartitionsRejectsUnknownTopicsStaleCountsBadReplicasAndTheLimit() {
        registerBrokers(3);
        TopicInfo orders = topic("orders", 2);
        apply(new CreateTopic(orders));
        TopicInfo created = metadata.image().topic("orders").orElseThrow();
        UUID id = orders.topicId();
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, rejected(apply(new AddPartitions("missing", id, 2,
                List.of(List.of(1, 2, 3))))));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, rejected(apply(new AddPartitions("orders",
                UUID.nameUUIDFromBytes(new byte[] {9}), 2, List.of(List.of(1, 2, 3))))), "a re-created topic");
        assertEquals(ErrorCode.INVALID_PARTITIONS, rejected(apply(new AddPartitions("orders", id, 1,
                List.of(List.of(1, 2, 3))))), "based on a stale partition count");
        assertEquals(ErrorCode.INVALID_PARTITIONS, rejected(apply(new AddPartitions("orders", id, 2, List.of()))));
        List<List<Integer>> tooMany = new ArrayList<>();
        for (int p = 2; p <= Limits.PARTITIONS_PER_TOPIC_MAX; p++) {
            tooMany.add(List.of(1, 2, 3));
        }
        assertEquals(ErrorCode.INVALID_PARTITIONS, rejected(apply(new AddPartitions("orders", id, 2, tooMany))));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT, rejected(apply(new AddPartitions("orders", id, 2,
                List.of(List.of(1, 2))))), "fewer replicas than the topic's replication factor");
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT, rejected(apply(new AddPartitions("orders", id, 2,
                List.of(List.of(1, 2, 2))))));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT, rejected(apply(new AddPartitions("orders", id, 2,
                List.of(List.of(1, 2, 4))))), "broker 4 is not registered");
        assertEquals(created, metadata.image().topic("orders").orElseThrow(), "nothing rejected changed the topic");
        assertEquals(3, metadata.image().nextRaftGroupId(), "nor took Raft group ids");
    }

    /**
     * Partition Raft group ids for Cairn's engine (docs/engine-integration.md §4): dense from 1 in apply order,
     * taken only by a create that applies, and never reused, also not after the topic is deleted.
     */
    @Test
    void raftGroupIdsAreDenseInApplyOrderAndNeverReused() {
        registerBrokers(3);
        UUID a = topic("a", 3).topicId();
        apply(new CreateTopic(topic("a", 3)));
        apply(new CreateTopic(topic("b", 2)));
        assertEquals(ErrorCode.TOPIC_ALREADY_EXISTS, rejected(apply(new CreateTopic(topic("b", 4)))));
        AddPartitions add = new AddPartitions("a", a, 3, List.of(List.of(1, 2, 3), List.of(2, 3, 1)));
        assertEquals(MetadataResult.OK, apply(add));
        assertEquals(MetadataResult.OK, apply(add), "a retry applied already takes no ids");
        assertEquals(ErrorCode.INVALID_PARTITIONS, rejected(apply(new AddPartitions("a", a, 3,
                List.of(List.of(3, 1, 2))))));
        apply(new DeleteTopic("b"));
        apply(new CreateTopic(topic("b", 1)));
        apply(new CreateTopic(topic("c", 2)));

        MetadataImage image = metadata.image();
        assertEquals(List.of(1, 2, 3, 6, 7), image.topic("a").orElseThrow().raftGroups());
        assertEquals(List.of(8), image.topic("b").orElseThrow().raftGroups(), "ids 4 and 5 went with the old b");
        assertEquals(List.of(9, 10), image.topic("c").orElseThrow().raftGroups());
        assertEquals(11, image.nextRaftGroupId());
        assertEquals(7, image.topic("a").orElseThrow().raftGroup(4));
        assertThrows(IndexOutOfBoundsException.class, () -> image.topic("a").orElseThrow().raftGroup(5));
    }

    /** Two brokers, one restored from a snapshot, apply the same entries and end with the same ids (and image). */
    @Test
    void aBrokerRestoredFromASnapshotAssignsTheSameRaftGroupIds() {
        registerBrokers(3);
        apply(new CreateTopic(topic("a", 2)));
        apply(new CreateTopic(topic("gone", 1)));
        apply(new DeleteTopic("gone"));
        apply(new AddPartitions("a", topic("a", 2).topicId(), 2, List.of(List.of(1, 2, 3))));
        ClusterMetadata restored = new ClusterMetadata(change -> { });
        restored.restore(MetadataCodec.decodeSnapshot(ByteBuffer.wrap(MetadataCodec.encodeSnapshot(metadata.image()))));
        List<MetadataCommand> later = List.of(new CreateTopic(topic("b", 2)),
                new AddPartitions("a", topic("a", 2).topicId(), 3, List.of(List.of(2, 3, 1))),
                new DeleteTopic("a"), new CreateTopic(topic("c", 1)));
        for (MetadataCommand command : later) {
            long index = raftIndex + 1;
            assertEquals(apply(command), restored.apply(index, command));
        }

        assertEquals(metadata.image(), restored.image());
        assertEquals(List.of(5, 6), restored.image().topic("b").orElseThrow().raftGroups());
        assertEquals(List.of(8), restored.image().topic("c").orElseThrow().raftGroups());
        assertEquals(9, restored.image().nextRaftGroupId());
    }

    /**
     * Ids are 32-bit and never reused: once they run out, new partitions are refused, as a result. A topic from
     * before ids (restored from an older snapshot) takes none as it grows, so it still can.
     */
    @Test
    void partitionsAreRefusedOnceRaftGroupIdsRunOut() {
        registerBrokers(3);
        int max = MetadataImage.RAFT_GROUP_ID_MAX;
        TopicInfo old = topic("old", 1);
        metadata.restore(metadata.image().withTopics(raftIndex, Map.of("old", old), max - 2L));
        assertEquals(MetadataResult.OK, apply(new CreateTopic(topic("a", 2))));
        assertEquals(List.of(max - 2, max - 1), metadata.image().topic("a").orElseThrow().raftGroups());

        assertEquals(ErrorCode.POLICY_VIOLATION, rejected(apply(new CreateTopic(topic("b", 2)))));
        assertEquals(MetadataResult.OK, apply(new CreateTopic(topic("b", 1))), "the last id is still given");
        assertEquals(ErrorCode.POLICY_VIOLATION, rejected(apply(new AddPartitions("a", topic("a", 2).topicId(), 2,
                List.of(List.of(1, 2, 3))))));
        assertEquals(MetadataResult.OK, apply(new AddPartitions("old", old.topicId(), 1, List.of(List.of(1, 2, 3)))));

        assertEquals(max + 1L, metadata.image().nextRaftGroupId());
        assertEquals(2, metadata.image().topic("a").orElseThrow().partitionCount());
        TopicInfo grown = metadata.image().topic("old").orElseThrow();
        assertEquals(List.of(), grown.raftGroups());
        assertEquals(0, grown.raftGroup(1));
        assertEquals(metadata.image(), MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image()))));
    }

    /** A broker's engine address comes with its registration; one without the engine clears it. */
    @Test
    void brokersRegisterTheirEngineAddress() {
        apply(new RegisterBroker(new BrokerInfo(1, "h1", 9092, "h1:9093", List.of(), "h1:9094")));
        apply(new RegisterBroker(new BrokerInfo(2, "h2", 9092, "h2:9093")));
        assertEquals("h1:9094", metadata.image().brokers().get(1).engineAddress());
        assertNull(metadata.image().brokers().get(2).engineAddress());
        assertEquals(metadata.image(), MetadataCodec.decodeSnapshot(ByteBuffer.wrap(
                MetadataCodec.encodeSnapshot(metadata.image()))));

        apply(new RegisterBroker(new BrokerInfo(1, "h1", 9092, "h1:9093")));
        assertNull(metadata.image().brokers().get(1).engineAddress(), "restarted without the engine");
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
