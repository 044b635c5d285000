package dev.cairn.broker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The admin commands of the broker jar against a real broker, run through the same picocli entry point as
 * {@code java -jar cairn-broker.jar}: what they print, what they report on stderr, and their exit codes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminCommandsIT {
    private static final long WAIT_MS_MAX = 30_000;

    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("num.partitions", "2", "group.initial.rebalance.delay.ms",
                "0"));
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    /** One run of the CLI: exit code, stdout, stderr. */
    record Run(int exit, String out, String err) {
    }

    static Run cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new BrokerCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Run admin(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--bootstrap-server");
        all.add(broker.bootstrap());
        return cli(all.toArray(String[]::new));
    }

    @Test
    void createListDescribeDeleteTopics() throws Exception {
        Run created = admin("topics", "create", "--topic", "orders", "--partitions", "3", "--config",
                "retention.ms=3600000");
        assertEquals(0, created.exit(), created.err());
        assertEquals("Created topic orders.\n", created.out());

        Run again = admin("topics", "create", "--topic", "orders");
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("TOPIC_ALREADY_EXISTS"), again.err());

        Run defaults = admin("topics", "create", "--topic", "defaults");
        assertEquals(0, defaults.exit(), defaults.err());

        Run listed = admin("topics", "list");
        assertEquals(0, listed.exit(), listed.err());
        assertTrue(listed.out().lines().toList().containsAll(List.of("defaults", "orders")), listed.out());

        Run described = admin("topics", "describe", "--topic", "orders");
        assertEquals(0, described.exit(), described.err());
        assertTrue(described.out().startsWith("Topic: orders\tPartitionCount: 3\tReplicationFactor: 1\n"),
                described.out());
        assertTrue(described.out().contains("\tTopic: orders\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1"),
                described.out());
        Run describedDefaults = admin("topics", "describe", "--topic", "defaults");
        assertTrue(describedDefaults.out().contains("PartitionCount: 2"), "num.partitions applies: "
                + describedDefaults.out());

        Run missing = admin("topics", "describe", "--topic", "no-such-topic");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("UNKNOWN_TOPIC_OR_PARTITION"), missing.err());

        Run deleted = admin("topics", "delete", "--topic", "orders");
        assertEquals(0, deleted.exit(), deleted.err());
        assertEquals("Deleted topic orders.\n", deleted.out());
        awaitTopics(names -> !names.contains("orders"));
        Run deletedAgain = admin("topics", "delete", "--topic", "orders");
        assertEquals(1, deletedAgain.exit());
        assertTrue(deletedAgain.err().contains("UNKNOWN_TOPIC_OR_PARTITION"), deletedAgain.err());
    }

    @Test
    void alterAddsPartitionsAndRefusesADecrease() {
        assertEquals(0, admin("topics", "create", "--topic", "growing", "--partitions", "2").exit());

        Run checked = admin("topics", "alter", "--topic", "growing", "--partitions", "4", "--validate-only");
        assertEquals(0, checked.exit(), checked.err());
        assertEquals("Topic growing can have 4 partitions (validate only: nothing changed).\n", checked.out());
        assertTrue(admin("topics", "describe", "--topic", "growing").out().contains("PartitionCount: 2\t"));

        Run grown = admin("topics", "alter", "--topic", "growing", "--partitions", "4");
        assertEquals(0, grown.exit(), grown.err());
        assertEquals("Topic growing now has 4 partitions.\n", grown.out());
        Run described = admin("topics", "describe", "--topic", "growing");
        assertTrue(described.out().startsWith("Topic: growing\tPartitionCount: 4\tReplicationFactor: 1\n"),
                described.out());
        assertTrue(described.out().contains("\tTopic: growing\tPartition: 3\tLeader: 1\tReplicas: 1\tIsr: 1"),
                described.out());

        Run shrink = admin("topics", "alter", "--topic", "growing", "--partitions", "3");
        assertEquals(1, shrink.exit());
        assertEquals("cairn: cannot alter topic growing: INVALID_PARTITIONS (The topic growing currently has 4 "
                + "partition(s); 3 would not be an increase.)\n", shrink.err());
        Run missing = admin("topics", "alter", "--topic", "no-such-topic", "--partitions", "3");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("UNKNOWN_TOPIC_OR_PARTITION"), missing.err());
        Run noCount = cli("topics", "alter", "--topic", "growing");
        assertEquals(2, noCount.exit());
        assertTrue(noCount.err().contains("--partitions"), noCount.err());
    }

    @Test
    void listAndDescribeGroups() throws Exception {
        assertEquals(0, admin("topics", "create", "--topic", "grouped").exit());
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "billing");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "billing-1");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of("grouped"));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200));
            }
            assertFalse(consumer.assignment().isEmpty(), "the consumer joined its group");

            Run listed = admin("groups", "list");
            assertEquals(0, listed.exit(), listed.err());
            assertTrue(listed.out().lines().toList().contains("billing"), listed.out());

            Run described = admin("groups", "describe", "--group", "billing");
            assertEquals(0, described.exit(), described.err());
            assertTrue(described.out().startsWith("Group: billing\tState: Stable\tProtocolType: consumer\t"),
                    described.out());
            assertTrue(described.out().contains("\tMembers: 1\t"), described.out());
            assertTrue(described.out().contains("\tClientId: billing-1\t"), described.out());
            assertTrue(described.out().contains("has no committed offsets"), described.out());

            // Committed offsets and their lag, as kafka-consumer-groups --describe shows them.
            Properties producerProps = new Properties();
            producerProps.put("bootstrap.servers", broker.bootstrap());
            try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                    new org.apache.kafka.clients.producer.KafkaProducer<>(producerProps,
                            new org.apache.kafka.common.serialization.StringSerializer(),
                            new org.apache.kafka.common.serialization.StringSerializer())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("grouped", 0, "k", "v" + i))
                            .get(WAIT_MS_MAX, TimeUnit.MILLISECONDS);
                }
            }
            consumer.commitSync(java.util.Map.of(new org.apache.kafka.common.TopicPartition("grouped", 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(4)));
            Run lagged = admin("groups", "describe", "--group", "billing");
            assertEquals(0, lagged.exit(), lagged.err());
            assertTrue(lagged.out().lines().anyMatch(line -> line.matches("billing\\s+grouped\\s+0\\s+4\\s+10\\s+6")),
                    lagged.out());
        }
    }

    @Test
    void healthcheckPassesForARunningBroker() {
        Run healthy = cli("healthcheck", "--set", "listeners=" + broker.bootstrap(), "--set",
                "raft.listener=127.0.0.1:1");
        assertEquals(0, healthy.exit(), healthy.err());
        assertEquals("healthy\n", healthy.out());
        Run otherNode = cli("healthcheck", "--set", "listeners=" + broker.bootstrap(), "--set",
                "raft.listener=127.0.0.1:1", "--set", "node.id=7");
        assertEquals(1, otherNode.exit());
        assertTrue(otherNode.err().contains("node 7 is not yet registered"), otherNode.err());
    }

    @Test
    void unreachableBrokersAndBadArgumentsAreClearErrors() throws Exception {
        int closedPort = BrokerFixture.freePort();
        Run unreachable = cli("topics", "list", "--bootstrap-server", "127.0.0.1:" + closedPort, "--timeout-ms",
                "5000");
        assertEquals(3, unreachable.exit());
        assertTrue(unreachable.err().startsWith("cairn: cannot connect to 127.0.0.1:" + closedPort), unreachable.err());

        Run badAddress = cli("topics", "list", "--bootstrap-server", "no-port");
        assertEquals(2, badAddress.exit());
        assertTrue(badAddress.err().contains("not host:port"), badAddress.err());

        Run missingOption = cli("topics", "create");
        assertEquals(2, missingOption.exit());
        assertTrue(missingOption.err().contains("--topic"), missingOption.err());

        Run unhealthy = cli("healthcheck", "--set", "listeners=127.0.0.1:" + closedPort, "--timeout-ms", "5000");
        assertEquals(1, unhealthy.exit());
    }

    private void awaitTopics(Predicate<List<String>> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        List<String> names = List.of();
        while (System.nanoTime() < deadline) {
            names = admin("topics", "list").out().lines().toList();
            if (condition.test(names)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("topics never matched; last: " + names);
    }
}
