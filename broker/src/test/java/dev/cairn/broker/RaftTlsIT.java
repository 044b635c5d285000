package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCodec;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.TopicInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.GroupListReply;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: three brokers with raft.ssl.enabled=true (mutual TLS between brokers, through Ratis's gRPC TLS) form a
 * cluster and serve a replication-factor-3 topic to Kafka's Java client, consumer-group commits included (they reach
 * partition leaders on other brokers through Cairn's own Raft clients). A fourth party that talks Raft to the brokers
 * without a certificate signed by the cluster's CA (plaintext, or TLS with a certificate of another CA) has neither
 * a metadata command nor a partition entry applied, nor a group added, and the cluster's data stays as it was. It
 * also runs with the partitions on Cairn's Raft engine (its connections under the same mutual TLS).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RaftTlsIT {
    private static final String PASSWORD = TestCertificates.PASSWORD;
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 3_000;
    /** An outsider's Raft client gives up after this many attempts, each bounded by the request timeout. */
    private static final int OUTSIDER_ATTEMPTS = 2;
    private static final TimeDuration OUTSIDER_REQUEST_TIMEOUT = TimeDuration.valueOf(3, TimeUnit.SECONDS);
    private static final long WAIT_S = 60;

    @TempDir
    static Path certDir;
    @TempDir
    static Path otherCertDir;
    @TempDir
    static Path dataDir;
    private static TestCertificates certs;
    /** A CA the cluster does not trust, with a certificate of its own for 127.0.0.1. */
    private static TestCertificates otherCa;
    private static InProcessCluster cluster;

    /** The raft.ssl.* settings of a broker whose key and truststore come from {@code certs}. */
    static Map<String, String> raftTls(TestCertificates certs) {
        return Map.of("raft.ssl.enabled", "true",
                "raft.ssl.keystore.location", certs.brokerKeystore().toString(),
                "raft.ssl.keystore.password", PASSWORD,
                "raft.ssl.truststore.location", certs.truststore().toString(),
                "raft.ssl.truststore.password", PASSWORD);
    }

    @BeforeAll
    static void startCluster() throws Exception {
        certs = TestCertificates.create(certDir);
        otherCa = TestCertificates.create(otherCertDir);
        Map<String, String> settings = new HashMap<>(raftTls(certs));
        settings.put("default.replication.factor", "3");
        settings.put("leader.imbalance.check.interval.seconds", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        cluster = InProcessCluster.start(3, dataDir, settings);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void replicationFactorThreeTopicIsServedOverRaftTls() throws Exception {
        String topic = "tls-orders";
        try (Admin admin = Admin.create(adminProps())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get(WAIT_S, TimeUnit.SECONDS);
            waitFor(() -> inSyncEverywhere(admin, topic), "three in-sync replicas per partition, replicated over TLS");
            waitFor(() -> leaders(admin, topic).size() >= 2, "leadership spread over the brokers");
        }
        produce(topic, PARTITIONS, RECORDS);
        assertEquals(RECORDS, consume(topic, RECORDS, "tls-group"), "every acknowledged record is read once");
        try (Admin admin = Admin.create(adminProps())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("tls-group")
                    .partitionsToOffsetAndMetadata().get(WAIT_S, TimeUnit.SECONDS);
            long total = 0;
            for (OffsetAndMetadata offset : committed.values()) {
                total += offset.offset();
            }
            assertEquals(PARTITIONS, committed.size(), "a commit for every partition, whichever broker leads it");
            assertEquals(RECORDS, total, "commits at the end of every partition");
        }
    }

    @Test
    void outsidersWithoutAClusterCertificateCannotTalkRaft() throws Exception {
        String topic = "tls-guarded";
        int records = 100;
        List<RaftPeer> peers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            peers.add(RaftPeer.newBuilder().setId(Integer.toString(id))
                    .setAddress(cluster.config(id).raftListener().toString()).build());
        }
        UUID topicId;
        Set<String> topicsBefore;
        try (Admin admin = Admin.create(adminProps())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get(WAIT_S, TimeUnit.SECONDS);
            produce(topic, 1, records);
            topicsBefore = admin.listTopics().names().get(WAIT_S, TimeUnit.SECONDS);
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(WAIT_S, TimeUnit.SECONDS).get(topic);
            topicId = new UUID(description.topicId().getMostSignificantBits(),
                    description.topicId().getLeastSignificantBits());
        }
        RaftGroupId metadataGroup = RaftGroupId.valueOf(PartitionGroups.METADATA_GROUP_ID);
        RaftGroupId partitionGroup = RaftGroupId.valueOf(PartitionGroups.groupId(topicId, 0));
        Message createTopic = Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(new MetadataCommand.CreateTopic(
                new TopicInfo("intruder-topic", UUID.randomUUID(), List.of(List.of(1, 2, 3)), Map.of())))));
        RaftGroupId intruderGroup = RaftGroupId.valueOf(UUID.randomUUID());
        RaftGroup intruderJoin = RaftGroup.valueOf(intruderGroup, List.of(peers.get(0)));

        // The outsider trusts the cluster's CA (its certificate is public); only its own certificate is in question.
        Map<String, GrpcTlsConfig> outsiders = new java.util.LinkedHashMap<>();
        outsiders.put("a plaintext client", null);
        outsiders.put("a client with another CA's certificate", tls(otherCa.brokerKeystore(), certs.truststore()));
        for (Map.Entry<String, GrpcTlsConfig> outsider : outsiders.entrySet()) {
            String who = outsider.getKey();
            try (RaftClient client = client(RaftGroup.valueOf(metadataGroup, peers), outsider.getValue())) {
                assertTrue(refused(client.async().send(createTopic)), who + ": the metadata group refuses it");
                assertThrows(IOException.class, () -> client.getGroupManagementApi(RaftPeerId.valueOf("1"))
                        .add(intruderJoin), who + ": a broker refuses to add its group");
            }
            if (partitionsOnRatis()) {
                try (RaftClient client = client(RaftGroup.valueOf(partitionGroup, peers), outsider.getValue())) {
                    assertTrue(refused(client.async().send(Message.valueOf("intruder-entry"))),
                            who + ": the partition group refuses it");
                }
            }
        }

        // The same calls with a broker certificate of the cluster's CA get through: only the certificate differed.
        GrpcTlsConfig member = tls(certs.brokerKeystore(), certs.truststore());
        try (RaftClient client = client(RaftGroup.valueOf(metadataGroup, peers), member)) {
            for (int id = 1; id <= 3; id++) {
                GroupListReply groups = client.getGroupManagementApi(RaftPeerId.valueOf(Integer.toString(id))).list();
                assertTrue(groups.getGroupIds().contains(metadataGroup)
                        && (!partitionsOnRatis() || groups.getGroupIds().contains(partitionGroup)),
                        "broker " + id + " lists its groups to a member: " + groups.getGroupIds());
                assertFalse(groups.getGroupIds().contains(intruderGroup), "broker " + id + " added no outsider group");
            }
        }
        try (Admin admin = Admin.create(adminProps())) {
            assertEquals(topicsBefore, admin.listTopics().names().get(WAIT_S, TimeUnit.SECONDS),
                    "no topic was created by an outsider");
            TopicPartition tp = new TopicPartition(topic, 0);
            assertEquals(records, admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                    .get(WAIT_S, TimeUnit.SECONDS).offset(), "no entry was appended by an outsider");
        }
        assertEquals(records, consume(topic, records, "guarded-group"));
    }

    /**
     * Whether the partitions' groups run on Ratis, beside the metadata group; on the Cairn engine (the default) they
     * are reached on the engine's port, whose refusal of outsiders {@code net.RaftFrameTlsTest} shows, and only the
     * metadata group is Ratis's.
     */
    private static boolean partitionsOnRatis() {
        return ItRaftEngine.partitionsOnRatis();
    }

    /** Mutual TLS with the key of {@code keystore} and the certificates of {@code truststore}, built with the JDK. */
    private static GrpcTlsConfig tls(Path keystore, Path truststore) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(keystore), PASSWORD.toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load(truststore));
        return new GrpcTlsConfig(keys.getKeyManagers()[0], trust.getTrustManagers()[0], true);
    }

    private static KeyStore load(Path file) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    /** A Ratis gRPC client of the group, with TLS when {@code tls} is not null, giving up within seconds. */
    private static RaftClient client(RaftGroup group, GrpcTlsConfig tls) {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, OUTSIDER_REQUEST_TIMEOUT);
        Parameters parameters = new Parameters();
        if (tls != null) {
            GrpcConfigKeys.TLS.setConf(parameters, tls);
        }
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties).setParameters(parameters)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(OUTSIDER_ATTEMPTS,
                        TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** Whether a Raft request failed, exceptionally or with a failed reply, within a minute. */
    private static boolean refused(CompletableFuture<RaftClientReply> request) throws Exception {
        try {
            return !request.get(WAIT_S, TimeUnit.SECONDS).isSuccess();
        } catch (ExecutionException e) {
            return true;
        }
    }

    private static Properties adminProps() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        return props;
    }

    private static boolean inSyncEverywhere(Admin admin, String topic) {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(WAIT_S, TimeUnit.SECONDS).get(topic);
            return description.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == 3);
        } catch (Exception e) {
            return false;
        }
    }

    private static Set<Integer> leaders(Admin admin, String topic) {
        Set<Integer> leaders = new HashSet<>();
        try {
            for (TopicPartitionInfo partition : admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(WAIT_S, TimeUnit.SECONDS).get(topic).partitions()) {
                if (partition.leader() != null) {
                    leaders.add(partition.leader().id());
                }
            }
        } catch (Exception e) {
            // Not known yet: asked again.
        }
        return leaders;
    }

    /** Produces ids 0..count-1, spread over the topic's {@code partitions} partitions. */
    private static void produce(String topic, int partitions, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long id = 0; id < count; id++) {
                // Spread over every partition explicitly: the sticky partitioner may leave one empty, and a consumer
                // that read everything before it had a position there commits no offset for it.
                acks.add(producer.send(new ProducerRecord<>(topic, (int) (id % partitions), null,
                        ByteBuffer.allocate(8).putLong(id).array())));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_S, TimeUnit.SECONDS);
        }
    }

    /** Reads {@code expected} records with a consumer group that commits, and returns how many distinct ones came. */
    private static int consume(String topic, int expected, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Set<Long> seen = new HashSet<>();
        int received = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S * 2);
            while (received < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    seen.add(ByteBuffer.wrap(record.value()).getLong());
                    received++;
                }
            }
            consumer.commitSync(Duration.ofSeconds(WAIT_S));
        }
        assertEquals(expected, received, "records read from " + topic);
        return seen.size();
    }

    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
