package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.BrokerConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers on loopback, one Raft group per partition across them: a 6-partition topic with replication
 * factor 3 keeps taking writes after a broker stops, and every acknowledged record is read back exactly once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ThreeBrokerIT {
    private static final String TOPIC = "replicated";
    private static final int PARTITIONS = 6;
    /** How long the preferred-leader check may take to spread leadership after the elections. */
    private static final long LEADER_SPREAD_WAIT_S = 30;

    @TempDir
    Path dir;
    private final List<Broker> brokers = new ArrayList<>();
    private final List<BrokerConfig> configs = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Broker broker : brokers) {
            broker.close();
        }
    }

    private List<Broker> startCluster() throws Exception {
        int[] raftPorts = {BrokerFixture.freePort(), BrokerFixture.freePort(), BrokerFixture.freePort()};
        String voters = "1@127.0.0.1:" + raftPorts[0] + ",2@127.0.0.1:" + raftPorts[1] + ",3@127.0.0.1:" + raftPorts[2];
        List<CompletableFuture<Broker>> starting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Map<String, String> settings = new HashMap<>();
            settings.put("node.id", Integer.toString(i + 1));
            settings.put("listeners", "127.0.0.1:0");
            settings.put("raft.listener", "127.0.0.1:" + raftPorts[i]);
            settings.put("raft.voters", voters);
            settings.put("log.dirs", dir.resolve("broker-" + (i + 1)).toString());
            settings.put("num.partitions", Integer.toString(PARTITIONS));
            settings.put("default.replication.factor", "3");
            settings.put("leader.imbalance.check.interval.seconds", "1");
            settings.put("broker.session.timeout.ms", "3000");
            settings.put("group.initial.rebalance.delay.ms", "0");
            BrokerConfig config = BrokerConfig.fromMap(ItRaftEngine.withEngine(settings));
            configs.add(config);
            // A broker's start-up waits for a metadata majority, so all three start together.
            starting.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return Broker.start(config);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<Broker> broker : starting) {
            brokers.add(broker.get(120, TimeUnit.SECONDS));
        }
        return brokers;
    }

    private String bootstrap() {
        List<String> addresses = new ArrayList<>();
        for (Broker broker : brokers) {
            addresses.add("127.0.0.1:" + broker.kafkaPort());
        }
        return String.join(",", addresses);
    }

    private List<Long> produce(long firstId, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long id = firstId; id < firstId + count; id++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, (int) (id % PARTITIONS), null,
                        ByteBuffer.allocate(8).putLong(id).array())));
            }
            producer.flush();
        }
        List<Long> acknowledged = new ArrayList<>();
        for (int i = 0; i < acks.size(); i++) {
            acks.get(i).get(120, TimeUnit.SECONDS);
            acknowledged.add(firstId + i);
        }
        return acknowledged;
    }

    private Map<Long, Integer> consumeAll(int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<Long, Integer> seen = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            partitions.forEach(tp -> consumer.seek(tp, 0));
            long[] nextOffset = new long[PARTITIONS];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int received = 0;
            while (received < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(nextOffset[record.partition()]++, record.offset(), "offsets are dense");
                    seen.merge(ByteBuffer.wrap(record.value()).getLong(), 1, Integer::sum);
                    received++;
                }
            }
        }
        return seen;
    }

    private static Set<Integer> leadersOf(List<PartitionInfo> infos) {
        Set<Integer> leaders = new HashSet<>();
        for (PartitionInfo info : infos) {
            if (info.leader() != null) {
                leaders.add(info.leader().id());
            }
        }
        return leaders;
    }

    private List<PartitionInfo> partitionsFor() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            return consumer.partitionsFor(TOPIC, Duration.ofSeconds(30));
        }
    }

    @Test
    void replicatedTopicSurvivesABrokerStopping() throws Exception {
        startCluster();
        List<Long> acknowledged = new ArrayList<>(produce(0, 30_000));

        List<PartitionInfo> infos = partitionsFor();
        assertEquals(PARTITIONS, infos.size());
        for (PartitionInfo info : infos) {
            Set<Integer> replicaIds = new HashSet<>();
            for (var node : info.replicas()) {
                replicaIds.add(node.id());
            }
            assertEquals(Set.of(1, 2, 3), replicaIds, "replicas on three distinct brokers: " + info);
        }
        // Elections can first put every leader on one broker; the imbalance check (every second here) hands
        // leadership back to the preferred replicas, so wait for it within a bound.
        long spreadDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(LEADER_SPREAD_WAIT_S);
        Set<Integer> leaders = leadersOf(infos);
        while (leaders.size() < 2 && System.nanoTime() < spreadDeadlineNs) {
            infos = partitionsFor();
            leaders = leadersOf(infos);
        }
        assertTrue(leaders.size() >= 2, "leadership is spread: " + infos);

        // The group's coordinator leads only some partitions: commits and reads go through each leader.
        Properties groupProps = new Properties();
        groupProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        groupProps.put(ConsumerConfig.GROUP_ID_CONFIG, "three-broker-group");
        groupProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        groupProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> commits = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            commits.put(new TopicPartition(TOPIC, p), new org.apache.kafka.clients.consumer.OffsetAndMetadata(
                    100L + p, "m" + p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(groupProps)) {
            consumer.assign(commits.keySet());
            consumer.commitSync(commits, Duration.ofSeconds(60));
            assertEquals(commits, consumer.committed(commits.keySet(), Duration.ofSeconds(60)));
        }

        Broker stopped = brokers.remove(2);
        stopped.close();
        acknowledged.addAll(produce(30_000, 10_000));

        Map<Long, Integer> seen = consumeAll(acknowledged.size());
        for (long id : acknowledged) {
            assertEquals(1, seen.getOrDefault(id, 0), "acknowledged record " + id + " read exactly once");
        }
        assertEquals(acknowledged.size(), seen.size(), "nothing unacknowledged or duplicated appeared");

        // The stopped broker leaves the in-sync replicas and the broker lists once the metadata leader has not heard
        // from it for broker.session.timeout.ms (3 s here), as Kafka fences it; it used to stay ~39 s in the ISR
        // and minutes in Metadata, so --under-replicated-partitions showed nothing.
        long fencedDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean fenced = false;
        String seenState = "";
        while (!fenced && System.nanoTime() < fencedDeadline) {
            List<PartitionInfo> now = partitionsFor();
            fenced = now.size() == PARTITIONS;
            for (PartitionInfo info : now) {
                for (var node : info.inSyncReplicas()) {
                    fenced &= node.id() != 3;
                }
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
                var nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                fenced &= nodes.stream().noneMatch(node -> node.id() == 3);
                seenState = now + " " + nodes;
            }
            if (!fenced) {
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
        assertTrue(fenced, "broker 3 left the ISRs and the broker list: " + seenState);

        // The stopped broker comes back, rejoins its groups and catches up; balancing hands every partition
        // back to its preferred leader, so no broker leads more than ceil(partitions / brokers) + 1 partitions.
        brokers.add(Broker.start(configs.get(2)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Map<Integer, Integer> leadCounts = new HashMap<>();
        boolean preferred = false;
        while (!preferred && System.nanoTime() < deadline) {
            leadCounts.clear();
            preferred = true;
            for (PartitionInfo info : partitionsFor()) {
                int leader = info.leader() == null ? -1 : info.leader().id();
                leadCounts.merge(leader, 1, Integer::sum);
                preferred &= leader == info.replicas()[0].id();
            }
            if (!preferred) {
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
        assertTrue(preferred, "every partition is led by its preferred replica after balancing: " + leadCounts);
        int bound = (int) Math.ceil(PARTITIONS / 3.0) + 1;
        for (int count : leadCounts.values()) {
            assertTrue(count <= bound, "no broker leads more than " + bound + " partitions: " + leadCounts);
        }
    }

    /**
     * A consumer group on three brokers: the coordinator is the broker FindCoordinator names from the group id
     * (hash over the sorted broker ids), two kafka-clients consumers share the six partitions three each, and
     * their commits reach partitions whatever broker leads them.
     */
    /**
     * One cluster, one id: every broker reports the same cluster id in DescribeCluster and Metadata, and keeps it
     * in its data directory (each directory used to make its own, so three brokers reported three ids).
     */
    @Test
    void everyBrokerReportsTheOneClusterId() throws Exception {
        startCluster();
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            String only = "127.0.0.1:" + brokers.get(i).kafkaPort();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, only))) {
                ids.add(admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            }
            java.util.Properties meta = new java.util.Properties();
            try (java.io.Reader reader = java.nio.file.Files.newBufferedReader(
                    configs.get(i).dataDir().resolve("meta.properties"))) {
                meta.load(reader);
            }
            ids.add(meta.getProperty("cluster.id"));
        }
        assertEquals(1, ids.size(), "cluster ids reported and stored: " + ids);
    }

    @Test
    void aConsumerGroupIsCoordinatedByTheBrokerItsIdHashesTo() throws Exception {
        startCluster();
        String group = "three-broker-group";
        int records = 600;
        produce(0, records);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        Map<Long, Integer> seen = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> first = new KafkaConsumer<>(props);
                KafkaConsumer<byte[], byte[]> second = new KafkaConsumer<>(props);
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            first.subscribe(List.of(TOPIC));
            second.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!(seen.size() == records && first.assignment().size() == PARTITIONS / 2
                    && second.assignment().size() == PARTITIONS / 2)) {
                assertTrue(System.nanoTime() < deadline, "consumed " + seen.size() + ", assignments "
                        + first.assignment() + " " + second.assignment());
                for (KafkaConsumer<byte[], byte[]> consumer : List.of(first, second)) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        seen.merge(ByteBuffer.wrap(record.value()).getLong(), 1, Integer::sum);
                    }
                    consumer.commitSync(Duration.ofSeconds(30));
                }
            }
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
                    .get(30, TimeUnit.SECONDS).get(group);
            assertEquals(1 + Math.floorMod(group.hashCode(), 3), description.coordinator().id(),
                    "the coordinator is the broker at hash(group id) mod 3 of the sorted ids");
            assertEquals(GroupState.STABLE, description.groupState());
            assertEquals(2, description.members().size());
            long committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            assertEquals(records, committed, "every partition's commit reached its leader");
        }
    }

    @Test
    void aGroupCarriesOnFromItsCommittedOffsetsWhenItsCoordinatorStops() throws Exception {
        startCluster();
        produce(0, 6_000);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "failover-group");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Set<Long> processed = new HashSet<>();
        boolean coordinatorStopped = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(TOPIC));
            while (processed.size() < 6_000 && System.nanoTime() < deadline) {
                var records = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    processed.add(ByteBuffer.wrap(record.value()).getLong());
                }
                if (!records.isEmpty()) {
                    try {
                        consumer.commitSync(Duration.ofSeconds(30));
                    } catch (org.apache.kafka.common.KafkaException e) {
                        // A commit racing the coordinator's death or a rebalance is retried by the next one.
                        continue;
                    }
                }
                if (!coordinatorStopped && processed.size() >= 2_000) {
                    int coordinator = coordinatorOf("failover-group");
                    Broker victim = brokers.stream().filter(b -> b.config().nodeId() == coordinator).findFirst()
                            .orElseThrow();
                    brokers.remove(victim);
                    victim.close();
                    coordinatorStopped = true;
                }
            }
            assertTrue(coordinatorStopped, "the coordinator was stopped mid-consumption");
            assertEquals(6_000, processed.size(), "the group consumed every record after its coordinator stopped");
            Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
            var committed = consumer.committed(consumer.assignment(), Duration.ofSeconds(30));
            for (var end : ends.entrySet()) {
                assertEquals(end.getValue(), committed.get(end.getKey()).offset(), "committed to the end");
            }
        }
    }

    private int coordinatorOf(String group) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap());
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(props)) {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS).coordinator().id();
        }
    }
}
