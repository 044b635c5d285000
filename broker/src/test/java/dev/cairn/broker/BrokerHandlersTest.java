package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handlers registered in {@link Broker} against unmodified kafka-clients 4.4 on one real broker (kafka-protocol.md
 * A.1 consumer flow "assign + commitSync", Admin routing): the producer and an assign()-based consumer work, ApiVersions
 * lists exactly the registered APIs, and Admin creates, describes and deletes topics.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BrokerHandlersTest {
    private static final Duration POLL_WAIT = Duration.ofMillis(200);
    private static final long CONSUME_WAIT_MS_MAX = 30_000;
    private static final long CLIENT_CALL_WAIT_S = 30;

    @TempDir
    static Path dataDir;
    private static Broker broker;
    private static String bootstrap;

    @BeforeAll
    static void start() throws IOException, InterruptedException {
        // A free port chosen here, not 0: at this branch's base the broker registers its advertised address before
        // its listener binds, so with port 0 it would advertise port 0 (main registers the bound port since f84c947).
        broker = Broker.start(BrokerConfig.fromMap(Map.of("listeners", "127.0.0.1:" + freePort(),
                "raft.listener", "127.0.0.1:" + freePort(), "log.dirs", dataDir.toString())));
        bootstrap = "127.0.0.1:" + broker.kafkaPort();
    }

    private static int freePort() throws IOException {
        return dev.cairn.broker.BrokerFixture.freePort();
    }

    @AfterAll
    static void stop() throws IOException {
        if (broker != null) {
            broker.close();
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }

    private static Throwable causeOf(ExecutionException e) {
        return e.getCause();
    }

    @Test
    void apiVersionsAdvertisesExactlyTheRegisteredHandlers() throws IOException {
        Struct request = new Struct(ApiVersionsRequest.SCHEMA)
                .set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, "probe")
                .set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION, "1");
        RequestHeader header = new RequestHeader(ApiKey.API_VERSIONS.id(), (short) 3, 1, "probe");
        Set<ApiKey> advertised = EnumSet.noneOf(ApiKey.class);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), broker.kafkaPort())) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(CLIENT_CALL_WAIT_S));
            ByteBuffer frame = ProtocolCodec.encodeRequest(header, request);
            socket.getOutputStream().write(frame.array(), 0, frame.limit());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            Struct body = ProtocolCodec.decodeResponse(ByteBuffer.wrap(response), ApiKey.API_VERSIONS, (short) 3)
                    .body();
            for (Struct api : body.get(ApiVersionsResponse.API_KEYS)) {
                advertised.add(ApiKey.forId(api.get(ApiVersionsResponse.ApiVersion.API_KEY)));
            }
        }
        assertEquals(EnumSet.of(ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.PRODUCE, ApiKey.FETCH,
                ApiKey.INIT_PRODUCER_ID, ApiKey.LIST_OFFSETS, ApiKey.OFFSET_FOR_LEADER_EPOCH, ApiKey.FIND_COORDINATOR, ApiKey.OFFSET_COMMIT,
                ApiKey.OFFSET_FETCH, ApiKey.DESCRIBE_CLUSTER, ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS,
                ApiKey.ADD_PARTITIONS_TO_TXN, ApiKey.ADD_OFFSETS_TO_TXN, ApiKey.END_TXN, ApiKey.TXN_OFFSET_COMMIT,
                ApiKey.LIST_TRANSACTIONS, ApiKey.DESCRIBE_TRANSACTIONS, ApiKey.DESCRIBE_PRODUCERS, ApiKey.WRITE_TXN_MARKERS,
                ApiKey.JOIN_GROUP, ApiKey.SYNC_GROUP, ApiKey.HEARTBEAT, ApiKey.LEAVE_GROUP, ApiKey.LIST_GROUPS,
                ApiKey.DELETE_GROUPS, ApiKey.OFFSET_DELETE, ApiKey.DELETE_RECORDS, ApiKey.DESCRIBE_LOG_DIRS, ApiKey.ELECT_LEADERS,
                ApiKey.DESCRIBE_GROUPS, ApiKey.CREATE_PARTITIONS, ApiKey.DESCRIBE_CONFIGS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
                ApiKey.ALTER_CONFIGS, ApiKey.SASL_HANDSHAKE,
                ApiKey.SASL_AUTHENTICATE, ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
                ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ApiKey.DESCRIBE_CLIENT_QUOTAS, ApiKey.CREATE_ACLS,
                ApiKey.DESCRIBE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_PARTITION_REASSIGNMENTS,
                ApiKey.LIST_PARTITION_REASSIGNMENTS), advertised);
    }

    @Test
    void adminCreatesDescribesAndDeletesTopics() throws Exception {
        try (Admin admin = admin()) {
            DescribeClusterResult cluster = admin.describeCluster();
            assertEquals(1, cluster.nodes().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).size());
            assertEquals(1, cluster.controller().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).id());
            assertNotNull(cluster.clusterId().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));

            NewTopic audit = new NewTopic("audit", 2, (short) 1).configs(Map.of("retention.ms", "3600000"));
            admin.createTopics(List.of(audit), new CreateTopicsOptions().validateOnly(true)).all()
                    .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
            assertTrue(!admin.listTopics().names().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).contains("audit"));
            admin.createTopics(List.of(audit)).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
            assertTrue(admin.listTopics().names().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).contains("audit"));

            ExecutionException exists = assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(audit)).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(TopicExistsException.class, causeOf(exists));
            ExecutionException badConfig = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                    new NewTopic("compacted", 1, (short) 1).configs(Map.of("cleanup.policy", "shred")))).all()
                    .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(InvalidConfigurationException.class, causeOf(badConfig));
            ExecutionException badName = assertThrows(ExecutionException.class, () -> admin.createTopics(List.of(
                    new NewTopic("bad name", 1, (short) 1))).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(InvalidTopicException.class, causeOf(badName));

            admin.deleteTopics(List.of("audit")).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
            assertTrue(!admin.listTopics().names().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).contains("audit"));
            ExecutionException unknown = assertThrows(ExecutionException.class, () -> admin.deleteTopics(
                    List.of("audit")).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(UnknownTopicOrPartitionException.class, causeOf(unknown));
        }
    }

    @Test
    void anAssignedConsumerSeeksByTimeCommitsAndResumesFromItsCommittedOffset() throws Exception {
        TopicPartition events0 = new TopicPartition("events", 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("events", 1, (short) 1))).all()
                    .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
        }
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            for (long timestampMs : new long[] {1_000, 2_000, 3_000}) {
                producer.send(new ProducerRecord<>("events", 0, timestampMs, null, "at-" + timestampMs))
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<String, String> consumer = consumer()) {
            consumer.assign(List.of(events0));
            assertEquals(Map.of(events0, 0L), consumer.beginningOffsets(List.of(events0)));
            assertEquals(Map.of(events0, 3L), consumer.endOffsets(List.of(events0)));
            OffsetAndTimestamp at1500 = consumer.offsetsForTimes(Map.of(events0, 1_500L)).get(events0);
            assertEquals(1, at1500.offset());
            assertEquals(2_000, at1500.timestamp());
            assertEquals(null, consumer.offsetsForTimes(Map.of(events0, 9_000L)).get(events0));

            // Nothing committed yet: OffsetFetch answers -1 and auto.offset.reset=earliest applies.
            assertEquals(List.of("at-1000", "at-2000", "at-3000"), consumeAll(consumer, 3));
            consumer.commitSync(Map.of(events0, new OffsetAndMetadata(2, "checkpoint")));
            OffsetAndMetadata committed = consumer.committed(Set.of(events0)).get(events0);
            assertEquals(2, committed.offset());
            assertEquals("checkpoint", committed.metadata());
        }
        try (KafkaConsumer<String, String> resumed = consumer()) {
            resumed.assign(List.of(events0));
            assertEquals(List.of("at-3000"), consumeAll(resumed, 1));
        }
    }

    private static KafkaConsumer<String, String> consumer() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "standalone-app");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(props);
    }

    private static List<String> consumeAll(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONSUME_WAIT_MS_MAX);
        while (values.size() < count && System.nanoTime() < deadlineNs) {
            for (ConsumerRecord<String, String> record : consumer.poll(POLL_WAIT)) {
                values.add(record.value());
            }
        }
        return values;
    }
}
