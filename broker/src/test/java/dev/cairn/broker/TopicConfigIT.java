package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.DescribeConfigsRequest;
import dev.cairn.protocol.message.DescribeConfigsRequest.DescribeConfigsResource;
import dev.cairn.protocol.message.DescribeConfigsResponse;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResult;
import dev.cairn.protocol.schema.Struct;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic-level configs given to CreateTopics take effect: retention and segment size, and max.message.bytes. And
 * DescribeConfigs reports them, as {@code kafka-topics --describe} and {@code kafka-configs --describe} read them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TopicConfigIT {
    private static final long CLIENT_CALL_WAIT_S = 60;
    @TempDir
    Path dataDir;

    private static List<Path> segmentFilesIn(Path logDir) throws IOException {
        try (Stream<Path> files = Files.list(logDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
        }
    }

    /** Every segment file under the data directory (logs and snapshots) whose base offset is below {@code offset}. */
    private List<Path> segmentFilesBelow(long offset) throws IOException {
        try (Stream<Path> files = Files.walk(dataDir)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.log"))
                    .filter(f -> Long.parseLong(f.getFileName().toString().substring(0, 20)) < offset)
                    .toList();
        }
    }

    @Test
    void topicRetentionDeletesOldSegmentsAndMaxMessageBytesIsEnforced() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("log.retention.check.interval.ms", "1000",
                "raft.snapshot.interval.entries", "100"))) {
            Properties props = new Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            try (Admin admin = Admin.create(props)) {
                admin.createTopics(List.of(new NewTopic("short-lived", 1, (short) 1).configs(Map.of(
                        "segment.bytes", "4096", "retention.ms", "1000", "max.message.bytes", "2048"))))
                        .all().get(60, TimeUnit.SECONDS);
            }
            props.put("key.serializer", ByteArraySerializer.class.getName());
            props.put("value.serializer", ByteArraySerializer.class.getName());
            props.put("batch.size", "1024");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
                for (int i = 0; i < 200; i++) {
                    producer.send(new ProducerRecord<>("short-lived", 0, null, new byte[300])).get(30, TimeUnit.SECONDS);
                }
                ExecutionException tooLarge = assertThrows(ExecutionException.class, () -> producer.send(
                        new ProducerRecord<>("short-lived", 0, null, new byte[4000])).get(30, TimeUnit.SECONDS));
                assertInstanceOf(RecordTooLargeException.class, tooLarge.getCause());
            }
            Properties consumerProps = new Properties();
            consumerProps.put("bootstrap.servers", broker.bootstrap());
            consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
            consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
            TopicPartition tp = new TopicPartition("short-lived", 0);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                long start = 0;
                while (start == 0 && System.nanoTime() < deadline) {
                    start = consumer.beginningOffsets(List.of(tp)).get(tp);
                    if (start == 0) {
                        TimeUnit.MILLISECONDS.sleep(200);
                    }
                }
                assertTrue(start > 0, "retention.ms=1000 deleted old segments: the log now starts at " + start);
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                assertTrue(start < end && end == 200, "the active segment stays: start " + start + ", end " + end);
                // Snapshots hard-link segments. Once retention has deleted every inactive segment (they are all
                // older than retention.ms by now), no snapshot may still hold one of them: the apply that deleted
                // them snapshots again at once (the next automatic snapshot is ~100 entries away).
                Path logDir = dataDir.resolve("logs").resolve("short-lived-0");
                while (segmentFilesIn(logDir).size() > 1 && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                List<Path> remaining = segmentFilesIn(logDir);
                assertEquals(1, remaining.size(), "retention left " + remaining);
                long logStart = Long.parseLong(remaining.get(0).getFileName().toString().substring(0, 20));
                long released = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!segmentFilesBelow(logStart).isEmpty() && System.nanoTime() < released) {
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                assertEquals(List.of(), segmentFilesBelow(logStart), "deleted segments still held on disk");
            }
        }
    }

    /**
     * A batch larger than a Raft log entry carries never committed: the producer saw REQUEST_TIMED_OUT and
     * NOT_LEADER_OR_FOLLOWER forever (issue 16 item 2). As in Kafka, a topic's max.message.bytes may now allow more
     * than the broker's message.max.bytes, up to what the Raft groups carry: about 16 MiB on Cairn's engine, the
     * broker's own limit on Ratis (whose log buffers are sized from it). A batch above that is answered
     * MESSAGE_TOO_LARGE at once, and the partition goes on working. franz-go's
     * TestIssueFetchLargerThanBrokerMaxReadBytes writes such a 5 MiB record on a default broker.
     */
    @Test
    void aTopicMayAllowBatchesAboveTheBrokersMessageMaxBytesUpToWhatItsRaftGroupsCarry() throws Exception {
        byte[] twoMiB = new byte[2 * 1024 * 1024];
        new java.util.Random(7).nextBytes(twoMiB);
        boolean onRatis = ItRaftEngine.partitionsOnRatis();
        try (BrokerFixture broker = BrokerFixture.start(dataDir.resolve("default"), Map.of())) {
            createTopic(broker, "big-default", Map.of("max.message.bytes", "10485760"));
            createTopic(broker, "huge-allowed", Map.of("max.message.bytes", Integer.toString(40 * 1024 * 1024)));
            try (KafkaProducer<byte[], byte[]> producer = largeRecordProducer(broker, 24 * 1024 * 1024)) {
                if (onRatis) {
                    ExecutionException tooLarge = assertThrows(ExecutionException.class, () -> producer.send(
                            new ProducerRecord<>("big-default", 0, null, twoMiB)).get(CLIENT_CALL_WAIT_S,
                            TimeUnit.SECONDS));
                    assertInstanceOf(RecordTooLargeException.class, tooLarge.getCause());
                } else {
                    assertEquals(0, producer.send(new ProducerRecord<>("big-default", 0, null, twoMiB))
                            .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).offset());
                    assertArrayEquals(twoMiB, readFirst(broker, new TopicPartition("big-default", 0)),
                            "the 2 MiB record read back");
                }
                byte[] pastTheEngine = new byte[dev.cairn.broker.config.RaftEngineKeys.ENGINE_BATCH_BYTES_MAX];
                ExecutionException tooLarge = assertThrows(ExecutionException.class, () -> producer.send(
                        new ProducerRecord<>("huge-allowed", 0, null, pastTheEngine)).get(CLIENT_CALL_WAIT_S,
                        TimeUnit.SECONDS));
                assertInstanceOf(RecordTooLargeException.class, tooLarge.getCause());
                // The partitions still work: the refused batches did not wedge their Raft groups.
                producer.send(new ProducerRecord<>("huge-allowed", 0, null, new byte[100]))
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
                producer.send(new ProducerRecord<>("big-default", 0, null, new byte[100]))
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
            }
        }
        if (!onRatis) {
            return;
        }
        try (BrokerFixture broker = BrokerFixture.start(dataDir.resolve("large"), Map.of(
                "message.max.bytes", Integer.toString(3 * 1024 * 1024)))) {
            createTopic(broker, "big-allowed", Map.of("max.message.bytes", "10485760"));
            try (KafkaProducer<byte[], byte[]> producer = largeRecordProducer(broker, 8 * 1024 * 1024)) {
                long offset = producer.send(new ProducerRecord<>("big-allowed", 0, null, twoMiB))
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).offset();
                assertEquals(0, offset);
            }
            assertArrayEquals(twoMiB, readFirst(broker, new TopicPartition("big-allowed", 0)),
                    "the 2 MiB record read back");
        }
    }

    private static byte[] readFirst(BrokerFixture broker, TopicPartition tp) {
        Properties consumerProps = new Properties();
        consumerProps.put("bootstrap.servers", broker.bootstrap());
        consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLIENT_CALL_WAIT_S);
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(java.time.Duration.ofMillis(500))) {
                    return record.value();
                }
            }
        }
        throw new AssertionError("nothing consumed from " + tp + " in " + CLIENT_CALL_WAIT_S + " s");
    }

    /**
     * compression.type and message.timestamp.type=LogAppendTime with Kafka's meaning: batches are stored with the
     * topic's codec whatever the producer used, and every record reads the time the leader accepted its batch, which
     * the producer learns from the produce response.
     */
    @Test
    void aTopicsCompressionTypeAndLogAppendTimeApplyToWhatIsStored() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of())) {
            createTopic(broker, "stamped", Map.of("compression.type", "zstd",
                    "message.timestamp.type", "LogAppendTime"));
            long before = System.currentTimeMillis();
            long ackedTimestamp;
            Properties props = new Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            props.put("key.serializer", ByteArraySerializer.class.getName());
            props.put("value.serializer", ByteArraySerializer.class.getName());
            props.put("compression.type", "gzip");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
                ackedTimestamp = producer.send(new ProducerRecord<>("stamped", 0, 1_000L, null,
                        "old timestamp".getBytes())).get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).timestamp();
            }
            long after = System.currentTimeMillis();
            assertTrue(ackedTimestamp >= before && ackedTimestamp <= after, "acked log append time " + ackedTimestamp);
            Properties consumerProps = new Properties();
            consumerProps.put("bootstrap.servers", broker.bootstrap());
            consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
            consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
            TopicPartition tp = new TopicPartition("stamped", 0);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLIENT_CALL_WAIT_S);
                org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> read = null;
                while (read == null && System.nanoTime() < deadline) {
                    for (var record : consumer.poll(java.time.Duration.ofMillis(500))) {
                        read = record;
                    }
                }
                assertNotNull(read, "nothing consumed");
                assertEquals(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, read.timestampType());
                assertEquals(ackedTimestamp, read.timestamp());
                assertEquals("old timestamp", new String(read.value()));
            }
            Path segment = segmentFilesIn(dataDir.resolve("logs").resolve("stamped-0")).get(0);
            ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(segment));
            assertEquals(4, header.getShort(21) & 0x07, "the stored batch uses zstd (codec 4), not the producer's gzip");
        }
    }

    private static void createTopic(BrokerFixture broker, String name, Map<String, String> configs) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrap());
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1).configs(configs)))
                    .all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<byte[], byte[]> largeRecordProducer(BrokerFixture broker, int requestBytesMax) {
        Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrap());
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        props.put("max.request.size", Integer.toString(requestBytesMax));
        props.put("buffer.memory", Integer.toString(2 * requestBytesMax));
        props.put("compression.type", "none");
        props.put("delivery.timeout.ms", "60000");
        props.put("request.timeout.ms", "30000");
        return new KafkaProducer<>(props);
    }

    /**
     * Admin.describeConfigs (KIP-133, synonyms KIP-226, documentation KIP-569) as kafka-topics --describe calls it:
     * the topic's own retention.ms (DYNAMIC_TOPIC_CONFIG in Admin's terms), segment.bytes inherited from the
     * broker's configured log.segment.bytes (STATIC_BROKER_CONFIG) and the rest defaults; an unknown topic; this
     * broker's own keys; and, on the wire, configuration keys selecting configs with unknown names absent.
     */
    @Test
    void describeConfigsReportsTopicAndBrokerConfigsWithTheirSources() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("log.segment.bytes", "2097152"))) {
            Properties props = new Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            try (Admin admin = Admin.create(props)) {
                admin.createTopics(List.of(new NewTopic("described", 1, (short) 1)
                        .configs(Map.of("retention.ms", "3600000")))).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS);
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "described");
                Config configs = admin.describeConfigs(List.of(topic), new DescribeConfigsOptions()
                        .includeSynonyms(true).includeDocumentation(true)).all()
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).get(topic);

                ConfigEntry retention = configs.get("retention.ms");
                assertEquals("3600000", retention.value());
                assertEquals(ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
                assertFalse(retention.isReadOnly());
                assertFalse(retention.isSensitive());
                assertEquals(ConfigEntry.ConfigType.LONG, retention.type());
                assertNotNull(retention.documentation());
                assertEquals(List.of("DYNAMIC_TOPIC_CONFIG retention.ms=3600000",
                        "DEFAULT_CONFIG log.retention.ms=604800000"), synonyms(retention));
                ConfigEntry segmentBytes = configs.get("segment.bytes");
                assertEquals("2097152", segmentBytes.value());
                assertEquals(ConfigSource.STATIC_BROKER_CONFIG, segmentBytes.source());
                assertEquals(ConfigEntry.ConfigType.INT, segmentBytes.type());
                assertEquals("delete", configs.get("cleanup.policy").value());
                assertEquals(ConfigSource.DEFAULT_CONFIG, configs.get("cleanup.policy").source());
                assertEquals("CreateTime", configs.get("message.timestamp.type").value());
                assertEquals(ConfigSource.DEFAULT_CONFIG, configs.get("retention.bytes").source());
                assertEquals("producer", configs.get("compression.type").value());
                assertEquals("86400000", configs.get("delete.retention.ms").value());
                assertEquals(ConfigEntry.ConfigType.DOUBLE, configs.get("min.cleanable.dirty.ratio").type());
                assertEquals(12, configs.entries().size(), "the topic configs Cairn supports: " + configs);

                ConfigResource missing = new ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic");
                ExecutionException unknown = assertThrows(ExecutionException.class, () -> admin.describeConfigs(
                        List.of(missing)).all().get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS));
                assertInstanceOf(UnknownTopicOrPartitionException.class, unknown.getCause());

                ConfigResource self = new ConfigResource(ConfigResource.Type.BROKER, "1");
                Config brokerConfigs = admin.describeConfigs(List.of(self)).all()
                        .get(CLIENT_CALL_WAIT_S, TimeUnit.SECONDS).get(self);
                ConfigEntry logSegmentBytes = brokerConfigs.get("log.segment.bytes");
                assertEquals("2097152", logSegmentBytes.value());
                assertEquals(ConfigSource.STATIC_BROKER_CONFIG, logSegmentBytes.source());
                assertFalse(logSegmentBytes.isReadOnly(), "a log default Cairn changes at run time, cluster-wide");
                assertTrue(brokerConfigs.get("node.id").isReadOnly());
                assertEquals("1", brokerConfigs.get("node.id").value());
                assertEquals(ConfigSource.DEFAULT_CONFIG, brokerConfigs.get("node.id").source());
            }

            // Admin always asks for every key; kafka-configs and UIs may list some, so ask on the wire.
            Struct result = describeOnTheWire(broker, "described", List.of("retention.ms", "no.such.config"));
            assertEquals((short) 0, result.get(DescribeConfigsResult.ERROR_CODE));
            List<Struct> selected = result.get(DescribeConfigsResult.CONFIGS);
            assertEquals(1, selected.size(), "unknown names are absent: " + selected);
            assertEquals("retention.ms", selected.get(0).get(DescribeConfigsResourceResult.NAME));
            assertEquals("3600000", selected.get(0).get(DescribeConfigsResourceResult.VALUE));
        }
    }

    private static List<String> synonyms(ConfigEntry entry) {
        return entry.synonyms().stream().map(s -> s.source() + " " + s.name() + "=" + s.value()).toList();
    }

    /** One DescribeConfigs v4 request for a topic's listed keys, over a plain socket with Cairn's codec. */
    private static Struct describeOnTheWire(BrokerFixture broker, String topic, List<String> keys) throws IOException {
        Struct request = new Struct(DescribeConfigsRequest.SCHEMA).set(DescribeConfigsRequest.RESOURCES, List.of(
                new Struct(DescribeConfigsResource.SCHEMA).set(DescribeConfigsResource.RESOURCE_TYPE, (byte) 2)
                        .set(DescribeConfigsResource.RESOURCE_NAME, topic)
                        .set(DescribeConfigsResource.CONFIGURATION_KEYS, keys)));
        RequestHeader header = new RequestHeader(ApiKey.DESCRIBE_CONFIGS.id(), (short) 4, 1, "probe");
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), broker.broker().kafkaPort())) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(CLIENT_CALL_WAIT_S));
            ByteBuffer frame = ProtocolCodec.encodeRequest(header, request);
            socket.getOutputStream().write(frame.array(), 0, frame.limit());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            Struct body = ProtocolCodec.decodeResponse(ByteBuffer.wrap(response), ApiKey.DESCRIBE_CONFIGS, (short) 4)
                    .body();
            return body.get(DescribeConfigsResponse.RESULTS).get(0);
        }
    }
}
