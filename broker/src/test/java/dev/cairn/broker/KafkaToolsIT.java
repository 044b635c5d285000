package dev.cairn.broker;

import static dev.cairn.broker.KafkaTool.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cairn.broker.KafkaTool.ToolMain;
import dev.cairn.broker.KafkaTool.ToolRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.ConfigCommand;
import org.apache.kafka.tools.DeleteRecordsCommand;
import org.apache.kafka.tools.LeaderElectionCommand;
import org.apache.kafka.tools.LogDirsCommand;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.4's own command-line tools against three brokers, each run in-process through its main class with
 * the arguments a user gives the script: {@code kafka-configs} (KIP-339 IncrementalAlterConfigs, DescribeConfigs),
 * {@code kafka-delete-records} (KIP-107), {@code kafka-consumer-groups} (describe, reset offsets, KIP-496 offset
 * deletion, group deletion), {@code kafka-log-dirs} (KIP-113 DescribeLogDirs) and {@code kafka-leader-election}
 * (KIP-460 ElectLeaders). See "Basic Kafka Operations" in Kafka's documentation. Every case checks the tool's exit
 * code, what it printed, and the cluster's state afterwards through kafka-clients' Admin.
 *
 * <p>The tools end with {@code Exit.exit(code)}; here that throws {@link ToolExited} instead of ending the JVM, and a
 * tool that returns without calling it exited 0 (as the JVM would). {@code kafka-consumer-groups} prints its
 * failures and still exits 0, so its cases also check that nothing went to stderr as an error.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaToolsIT {
    private static final long WAIT_SECONDS = 60;
    private static final short REPLICATION_FACTOR = 3;
    private static final String KAFKA_DEFAULT_RETENTION_MS = Long.toString(7L * 24 * 3600 * 1000);

    @TempDir
    static Path dir;
    private static InProcessCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("auto.create.topics.enable", "false",
                "auto.leader.rebalance.enable", "false", "log.retention.check.interval.ms", "1000"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (admin != null) {
            admin.close(Duration.ofSeconds(WAIT_SECONDS));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void routeExitToAnException() {
        KafkaTool.install();
    }

    @AfterEach
    void restoreExit() {
        KafkaTool.uninstall();
    }

    /** kafka-configs: set and delete topic configs, describe them; an unknown name fails with the server's word. */
    @Test
    void kafkaConfigsAltersAndDescribesTopicConfigs() throws Exception {
        String topic = "configured";
        // --delete-config needs the config set on the topic: the tool refuses to delete a name it does not list.
        createTopic(topic, 1, Map.of("retention.ms", "86400000"));

        ToolRun alter = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                "--entity-type", "topics", "--entity-name", topic,
                "--add-config", "segment.bytes=1048576,cleanup.policy=[delete,compact]",
                "--delete-config", "retention.ms");
        assertEquals(0, alter.exitCode(), alter.toString());
        assertTrue(alter.out().contains("Completed updating config for topic " + topic + "."), alter.toString());
        awaitTrue(() -> {
            Config config = topicConfig(topic);
            return config != null && "1048576".equals(valueOf(config, "segment.bytes"))
                    && "delete,compact".equals(valueOf(config, "cleanup.policy"))
                    && config.get("retention.ms").source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                    && KAFKA_DEFAULT_RETENTION_MS.equals(valueOf(config, "retention.ms"));
        }, () -> "the topic's configs through Admin: " + topicConfig(topic));

        // Any broker answers DescribeConfigs, each from its own copy of the metadata: it may lag a moment.
        List<ToolRun> describes = runUntil(r -> r.out().contains("segment.bytes=1048576"), ConfigCommand::main,
                "--bootstrap-server", cluster.bootstrap(), "--describe", "--entity-type", "topics",
                "--entity-name", topic);
        ToolRun describe = describes.get(describes.size() - 1);
        assertEquals(0, describe.exitCode(), describe.toString());
        assertTrue(describe.out().contains("Dynamic configs for topic " + topic + " are:"), describe.toString());
        assertTrue(describe.out().contains("  segment.bytes=1048576 sensitive=false"), describe.toString());
        assertTrue(describe.out().contains("  cleanup.policy=delete,compact sensitive=false"), describe.toString());
        assertFalse(describe.out().contains("retention.ms="), describe.toString());

        ToolRun unknown = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                "--entity-type", "topics", "--entity-name", topic, "--add-config", "no.such.config=1");
        assertEquals(1, unknown.exitCode(), unknown.toString());
        assertTrue(unknown.err().contains("InvalidConfigurationException"), unknown.toString());
        assertTrue(unknown.err().contains("Unknown topic config name: no.such.config"), unknown.toString());
        Config after = topicConfig(topic);
        assertNotNull(after);
        assertNull(after.get("no.such.config"), after.toString());
        assertEquals("1048576", valueOf(after, "segment.bytes"), after.toString());
    }

    /** kafka-configs on a broker: Cairn changes no broker config at run time and answers INVALID_REQUEST. */
    @Test
    void kafkaConfigsCannotAlterABrokerConfig() throws Exception {
        ToolRun broker = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.retention.ms=5");
        assertEquals(1, broker.exitCode(), broker.toString());
        assertTrue(broker.err().contains("InvalidRequestException"), broker.toString());
        assertTrue(broker.err().contains("for the whole cluster only"), broker.toString());
        ToolRun fileOnly = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                "--entity-type", "brokers", "--entity-name", "1", "--add-config", "message.max.bytes=5000");
        assertEquals(1, fileOnly.exitCode(), fileOnly.toString());
        assertTrue(fileOnly.err().contains("Cairn does not change broker configs while it runs"),
                fileOnly.toString());
        ConfigResource one = new ConfigResource(ConfigResource.Type.BROKER, "1");
        Config config = admin.describeConfigs(List.of(one)).all().get(WAIT_SECONDS, TimeUnit.SECONDS).get(one);
        assertEquals(KAFKA_DEFAULT_RETENTION_MS, valueOf(config, "log.retention.ms"), config.toString());

        ToolRun describe = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--describe",
                "--entity-type", "brokers", "--entity-name", "1");
        assertEquals(0, describe.exitCode(), describe.toString());
        assertTrue(describe.out().contains("Dynamic configs for broker 1 are:"), describe.toString());
        assertFalse(describe.out().contains("log.retention.ms="), describe.toString());
    }

    /**
     * kafka-configs --entity-type brokers --entity-default: the log defaults change for the whole cluster at run time;
     * a topic without its own values follows them on every replica (here retention by size deletes the same old
     * segments everywhere), and DescribeConfigs reports their source as Kafka does. Deleting them restores the file's.
     */
    @Test
    void kafkaConfigsChangesClusterWideLogDefaults() throws Exception {
        String topic = "follows-defaults";
        createTopic(topic, 1, Map.of());
        TopicPartition tp = new TopicPartition(topic, 0);
        try {
            ToolRun alter = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                    "--entity-type", "brokers", "--entity-default", "--add-config",
                    "log.segment.bytes=16384,log.retention.bytes=40000");
            assertNoError(alter);
            assertTrue(alter.out().contains("Completed updating default config for brokers in the cluster."),
                    alter.toString());
            ToolRun defaults = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--describe",
                    "--entity-type", "brokers", "--entity-default");
            assertNoError(defaults);
            assertTrue(defaults.out().contains("log.retention.bytes=40000 sensitive=false synonyms="
                    + "{DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.bytes=40000"), defaults.toString());
            ToolRun described = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--describe",
                    "--entity-type", "topics", "--entity-name", topic, "--all");
            assertTrue(described.out().contains("retention.bytes=40000 sensitive=false synonyms="
                    + "{DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.bytes=40000"), described.toString());

            produce(topic, 6000);
            // The partition leader carries the defaults into the log within a maintenance run, and segments roll on
            // appends (as in Kafka): records produced before that sit in one active segment, so keep appending.
            awaitTrue(() -> {
                if (replicaStarts(topic).stream().anyMatch(start -> start > 0)) {
                    return true;
                }
                try {
                    produce(topic, 100);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return false;
            }, "retention by the default size trimmed the log");
            awaitTrue(() -> allReplicasStartAtOrAbove(topic, 1) && Set.copyOf(replicaStarts(topic)).size() == 1,
                    "retention trimmed every replica alike: " + replicaStarts(topic));
            assertTrue(offset(tp, OffsetSpec.earliest()) > 0, "ListOffsets earliest follows");
        } finally {
            ToolRun reset = run(ConfigCommand::main, "--bootstrap-server", cluster.bootstrap(), "--alter",
                    "--entity-type", "brokers", "--entity-default", "--delete-config",
                    "log.segment.bytes,log.retention.bytes");
            assertNoError(reset);
        }
        ConfigResource defaultBroker = new ConfigResource(ConfigResource.Type.BROKER, "");
        assertTrue(admin.describeConfigs(List.of(defaultBroker)).all().get(WAIT_SECONDS, TimeUnit.SECONDS)
                .get(defaultBroker).entries().isEmpty(), "no dynamic default is left");
    }

    private static boolean allReplicasStartAtOrAbove(String topic, long offset) {
        return replicaStarts(topic).stream().allMatch(start -> start >= offset) && replicaStarts(topic).size() == 3;
    }

    private static List<Long> replicaStarts(String topic) {
        List<Long> starts = new ArrayList<>();
        for (int node = 1; node <= cluster.size(); node++) {
            cluster.broker(node).replicaRaftState(topic, 0).ifPresent(state -> starts.add(state.logStartOffset()));
        }
        return starts;
    }

    /** kafka-delete-records --offset-json-file: the low watermark moves to the offset on every replica. */
    @Test
    void kafkaDeleteRecordsMovesTheLowWatermark() throws Exception {
        String topic = "trimmed";
        TopicPartition tp = new TopicPartition(topic, 0);
        createTopic(topic, 1, Map.of());
        produce(topic, 100);
        Path offsets = dir.resolve("delete-records.json");
        Files.writeString(offsets, "{\"version\": 1, \"partitions\": [{\"topic\": \"" + topic
                + "\", \"partition\": 0, \"offset\": 40}]}");

        ToolRun delete = run(DeleteRecordsCommand::main, "--bootstrap-server", cluster.bootstrap(),
                "--offset-json-file", offsets.toString());
        assertEquals(0, delete.exitCode(), delete.toString());
        assertTrue(delete.out().contains("Records delete operation completed:"), delete.toString());
        assertTrue(delete.out().contains("partition: " + tp + "\tlow_watermark: 40"), delete.toString());
        assertEquals(40, offset(tp, OffsetSpec.earliest()));
        assertEquals(100, offset(tp, OffsetSpec.latest()));
        awaitTrue(() -> allReplicasStartAt(topic, 40), "every replica's log starts at 40");
    }

    /** kafka-consumer-groups: describe a group, reset its offsets to the earliest, delete offsets, delete it. */
    @Test
    void kafkaConsumerGroupsDescribesResetsAndDeletes() throws Exception {
        String group = "tools-group";
        String topic = "consumed";
        // The group also commits on a second topic, so it still exists (with offsets) when it is deleted.
        String other = "consumed-too";
        TopicPartition tp = new TopicPartition(topic, 0);
        TopicPartition otherTp = new TopicPartition(other, 0);
        createTopic(topic, 1, Map.of());
        createTopic(other, 1, Map.of());
        produce(topic, 50);
        produce(other, 10);
        consumeAndCommit(group, List.of(topic, other), 60);
        assertEquals(Map.of(tp, 50L, otherTp, 10L), committed(group));

        ToolRun describe = run(ConsumerGroupCommand::main, "--bootstrap-server", cluster.bootstrap(), "--describe",
                "--group", group);
        assertEquals(0, describe.exitCode(), describe.toString());
        assertNoError(describe);
        assertTrue(describe.err().contains("Consumer group '" + group + "' has no active members."),
                describe.toString());
        // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
        assertTrue(row(group, topic, "0", "50", "50", "0").matcher(describe.out()).find(), describe.toString());
        assertTrue(row(group, other, "0", "10", "10", "0").matcher(describe.out()).find(), describe.toString());

        ToolRun reset = run(ConsumerGroupCommand::main, "--bootstrap-server", cluster.bootstrap(), "--group", group,
                "--reset-offsets", "--to-earliest", "--execute", "--topic", topic);
        assertEquals(0, reset.exitCode(), reset.toString());
        assertNoError(reset);
        // GROUP TOPIC PARTITION NEW-OFFSET
        assertTrue(row(group, topic, "0", "0").matcher(reset.out()).find(), reset.toString());
        assertEquals(Map.of(tp, 0L, otherTp, 10L), committed(group));

        ToolRun deleteOffsets = run(ConsumerGroupCommand::main, "--bootstrap-server", cluster.bootstrap(),
                "--delete-offsets", "--group", group, "--topic", topic);
        assertEquals(0, deleteOffsets.exitCode(), deleteOffsets.toString());
        assertNoError(deleteOffsets);
        assertTrue(deleteOffsets.out().contains("Request succeeded for deleting offsets from group " + group),
                deleteOffsets.toString());
        assertTrue(row(topic, "0", "Successful").matcher(deleteOffsets.out()).find(), deleteOffsets.toString());
        assertEquals(Map.of(otherTp, 10L), committed(group));

        ToolRun delete = run(ConsumerGroupCommand::main, "--bootstrap-server", cluster.bootstrap(), "--delete",
                "--group", group);
        assertEquals(0, delete.exitCode(), delete.toString());
        assertNoError(delete);
        assertTrue(delete.out().contains("Deletion of requested consumer groups ('" + group + "') was successful."),
                delete.toString());
        List<String> groups = admin.listGroups().all().get(WAIT_SECONDS, TimeUnit.SECONDS).stream()
                .map(GroupListing::groupId).toList();
        assertFalse(groups.contains(group), groups.toString());
        assertEquals(Map.of(), committed(group));
    }

    /** kafka-log-dirs --describe: JSON with each broker's log directory holding its replica of the partition. */
    @Test
    void kafkaLogDirsListsEveryReplica() throws Exception {
        String topic = "logged";
        TopicPartition tp = new TopicPartition(topic, 0);
        createTopic(topic, 1, Map.of());
        produce(topic, 20);
        // The followers apply the records a moment after the leader acknowledges them; then the sizes agree.
        awaitTrue(() -> replicaSizes(tp).size() == 3 && Set.copyOf(replicaSizes(tp).values()).size() == 1,
                () -> "three replicas of one size: " + replicaSizes(tp));
        long size = replicaSizes(tp).get(1);
        assertTrue(size > 0, "size " + size);

        ToolRun logDirs = run(LogDirsCommand::main, "--bootstrap-server", cluster.bootstrap(), "--describe",
                "--broker-list", "1,2,3");
        assertEquals(0, logDirs.exitCode(), logDirs.toString());
        assertTrue(logDirs.out().contains("Received log directory information from brokers 1,2,3"),
                logDirs.toString());
        String json = logDirs.out().lines().filter(line -> line.startsWith("{")).findFirst().orElseThrow();
        JsonNode root = new ObjectMapper().readTree(json);
        assertEquals(1, root.get("version").asInt(), json);
        Map<Integer, Long> printed = new HashMap<>();
        for (JsonNode broker : root.get("brokers")) {
            for (JsonNode logDir : broker.get("logDirs")) {
                assertTrue(logDir.get("error").isNull(), json);
                assertTrue(Files.isDirectory(Path.of(logDir.get("logDir").asText())), json);
                for (JsonNode partition : logDir.get("partitions")) {
                    if (partition.get("partition").asText().equals(tp.toString())) {
                        assertFalse(partition.get("isFuture").asBoolean(), json);
                        printed.put(broker.get("broker").asInt(), partition.get("size").asLong());
                    }
                }
            }
        }
        assertEquals(Map.of(1, size, 2, size, 3, size), printed, json);
    }

    /**
     * kafka-leader-election --election-type preferred --all-topic-partitions: after the preferred replica was stopped
     * and came back as a follower, the tool hands the leadership back to it.
     */
    @Test
    void kafkaLeaderElectionMovesLeadershipBackToThePreferredReplica() throws Exception {
        String topic = "elected";
        TopicPartition tp = new TopicPartition(topic, 0);
        createTopic(topic, 1, Map.of());
        produce(topic, 10);
        int preferred = partition(tp).replicas().get(0).id();
        cluster.stop(preferred);
        try {
            awaitTrue(() -> leaderOrMinus(tp) > 0 && leaderOrMinus(tp) != preferred, "a leader other than "
                    + preferred);
        } finally {
            cluster.restart(preferred);
        }
        awaitTrue(KafkaToolsIT::everyPartitionFullyInSync, "every partition has all its replicas in sync");
        // Raft keeps the new leader after the restart, unless an election under a loaded machine's timeouts has
        // already handed leadership back: then the tool has nothing to elect, and says so.
        boolean alreadyBack = leaderOrMinus(tp) == preferred;

        // A broker answers from its own metadata, which may lag a moment behind: a user would rerun the tool.
        List<ToolRun> runs = runUntil(r -> r.exitCode() == 0, LeaderElectionCommand::main, "--bootstrap-server",
                cluster.bootstrap(), "--election-type", "preferred", "--all-topic-partitions");
        ToolRun election = runs.get(runs.size() - 1);
        assertEquals(0, election.exitCode(), election.toString());
        assertTrue(alreadyBack || runs.stream().anyMatch(r -> electedLine(r, tp)), runs.toString());
        awaitTrue(() -> leaderOrMinus(tp) == preferred, "the preferred replica " + preferred + " leads");

        // Nothing left to elect: with --all-topic-partitions the broker lists no partition (as Kafka's controller).
        ToolRun again = run(LeaderElectionCommand::main, "--bootstrap-server", cluster.bootstrap(),
                "--election-type", "preferred", "--all-topic-partitions");
        assertEquals(0, again.exitCode(), again.toString());
        assertFalse(electedLine(again, tp), again.toString());
    }

    private static boolean electedLine(ToolRun run, TopicPartition tp) {
        return run.out().lines().anyMatch(line -> line.startsWith(
                "Successfully completed leader election (PREFERRED) for partitions") && line.contains(tp.toString()));
    }

    // ---- running a tool ----

    /** Runs the tool again (bounded) until a run satisfies {@code done}; returns every run, the last one last. */
    private static List<ToolRun> runUntil(Predicate<ToolRun> done, ToolMain tool, String... args) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        List<ToolRun> runs = new ArrayList<>(List.of(run(tool, args)));
        while (!done.test(runs.get(runs.size() - 1)) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(500);
            runs.add(run(tool, args));
        }
        return runs;
    }

    /** kafka-consumer-groups reports failures on stderr as "Error: ..." and still exits 0. */
    private static void assertNoError(ToolRun run) {
        assertFalse(run.err().contains("Error:"), run.toString());
        assertFalse(run.out().contains("Error:"), run.toString());
    }

    /** A table row of the given cells separated by blanks, as the tools print them. */
    private static Pattern row(String... cells) {
        List<String> quoted = new ArrayList<>();
        for (String cell : cells) {
            quoted.add(Pattern.quote(cell));
        }
        return Pattern.compile("(?m)^" + String.join("\\s+", quoted) + "(\\s|$)");
    }

    // ---- the cluster through kafka-clients ----

    private static void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, REPLICATION_FACTOR).configs(configs))).all()
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        // Every broker has applied the topic (a tool may ask any of them) once each holds its replicas.
        awaitTrue(() -> {
            for (int node = 1; node <= cluster.size(); node++) {
                for (int p = 0; p < partitions; p++) {
                    if (cluster.broker(node).replicaRaftState(topic, p).isEmpty()) {
                        return false;
                    }
                }
            }
            return true;
        }, "every broker holds a replica of each partition of " + topic);
    }

    private static void produce(String topic, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1024");
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, "key-" + i, "record-" + i)));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** A consumer of {@code group} reads {@code records} records, commits its positions and leaves the group. */
    private static void consumeAndCommit(String group, List<String> topics, int records) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(topics);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            int seen = 0;
            while (seen < records) {
                assertTrue(System.nanoTime() < deadline, "consumed " + seen + " of " + records);
                seen += consumer.poll(Duration.ofMillis(500)).count();
            }
            assertEquals(records, seen);
            consumer.commitSync(Duration.ofSeconds(WAIT_SECONDS));
        }
    }

    /** The group's committed offsets, read through Admin (OffsetFetch). */
    private static Map<TopicPartition, Long> committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(WAIT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, Long> result = new HashMap<>();
        offsets.forEach((tp, offset) -> {
            if (offset != null) {
                result.put(tp, offset.offset());
            }
        });
        return result;
    }

    private static long offset(TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get(WAIT_SECONDS, TimeUnit.SECONDS).offset();
    }

    /** The topic's configs, or null while no broker answers (bounded by the call's own timeout). */
    private static Config topicConfig(String topic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            return admin.describeConfigs(List.of(resource)).all().get(WAIT_SECONDS, TimeUnit.SECONDS).get(resource);
        } catch (Exception e) {
            return null;
        }
    }

    private static String valueOf(Config config, String name) {
        ConfigEntry entry = config.get(name);
        return entry == null ? null : entry.value();
    }

    private static boolean allReplicasStartAt(String topic, long offset) {
        for (int node = 1; node <= cluster.size(); node++) {
            if (cluster.broker(node).replicaRaftState(topic, 0).map(s -> s.logStartOffset() != offset).orElse(true)) {
                return false;
            }
        }
        return true;
    }

    /** Each broker's reported size of its replica of {@code tp}, through Admin (DescribeLogDirs). */
    private static Map<Integer, Long> replicaSizes(TopicPartition tp) {
        Map<Integer, Long> sizes = new HashMap<>();
        try {
            admin.describeLogDirs(List.of(1, 2, 3)).allDescriptions().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .forEach((broker, dirs) -> dirs.values().forEach(logDir -> {
                        var replica = logDir.replicaInfos().get(tp);
                        if (replica != null) {
                            sizes.put(broker, replica.size());
                        }
                    }));
        } catch (Exception e) {
            sizes.clear();
        }
        return sizes;
    }

    private static TopicPartitionInfo partition(TopicPartition tp) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(tp.topic())).allTopicNames()
                .get(WAIT_SECONDS, TimeUnit.SECONDS).get(tp.topic());
        return description.partitions().get(tp.partition());
    }

    private static int leaderOrMinus(TopicPartition tp) {
        try {
            var leader = partition(tp).leader();
            return leader == null ? -1 : leader.id();
        } catch (Exception e) {
            return -1;
        }
    }

    private static boolean everyPartitionFullyInSync() {
        try {
            Set<String> topics = admin.listTopics().names().get(WAIT_SECONDS, TimeUnit.SECONDS);
            for (TopicDescription topic : admin.describeTopics(topics).allTopicNames()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS).values()) {
                for (TopicPartitionInfo partition : topic.partitions()) {
                    if (partition.isr().size() != partition.replicas().size()) {
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        awaitTrue(condition, () -> what);
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, () -> "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
