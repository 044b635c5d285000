package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's three-broker cluster on one host: three broker processes started from the broker jar with
 * {@code start --config config/cluster/broker-N.properties}, unchanged, from a scratch working directory (the
 * files' {@code log.dirs} are relative). Then the README's admin commands create a replication-factor-3 topic and
 * describe it, and kafka-clients produces to and consumes from it.
 *
 * <p>The files fix ports 19092/19093, 29092/29093 and 39092/39093. When one of them is taken on this machine the
 * test still uses the files, but moves the listeners to free ports with {@code --set}, as the README describes, and
 * says so on stdout.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SampleClusterConfigIT {
    private static final int[] FIXED_PORTS = {19092, 19093, 29092, 29093, 39092, 39093};
    private static final String TOPIC = "replicated";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 300;
    private static final long START_WAIT_MS_MAX = 120_000;
    private static final long WAIT_MS_MAX = 60_000;
    private static final long CLI_WAIT_MS_MAX = 60_000;

    @TempDir
    Path dir;

    @Test
    void sampleConfigsFormAReplicatedCluster() throws Exception {
        Path clusterConfigs = Path.of("..", "config", "cluster").toAbsolutePath().normalize();
        List<List<String>> overrides = portOverrides();
        List<LoggedProcess> brokers = new ArrayList<>();
        try {
            // A broker's start-up waits for a metadata majority, so all three start before any is awaited.
            for (int node = 1; node <= 3; node++) {
                List<String> command = new ArrayList<>(List.of(LoggedProcess.javaCommand(), "-Xmx512m", "-jar",
                        LoggedProcess.brokerJar().toString(), "start", "--config",
                        clusterConfigs.resolve("broker-" + node + ".properties").toString()));
                command.addAll(overrides.get(node - 1));
                brokers.add(LoggedProcess.start(command, Map.of(), dir, dir.resolve("broker-" + node + ".log")));
            }
            for (int node = 1; node <= 3; node++) {
                brokers.get(node - 1).awaitLog(" started: node.id=" + node, START_WAIT_MS_MAX);
            }
            String bootstrap = String.join(",", kafkaAddresses(overrides));
            String first = kafkaAddresses(overrides).get(0);

            String created = cli(0, "topics", "create", "--bootstrap-server", first, "--topic", TOPIC,
                    "--partitions", Integer.toString(PARTITIONS), "--replication-factor", "3");
            assertEquals("Created topic " + TOPIC + ".\n", created);
            awaitFullIsr(first);

            List<RecordMetadata> acks = produce(bootstrap);
            assertEquals(RECORDS, acks.size());
            assertEquals(RECORDS, consumeAll(bootstrap));
            assertTrue(dir.resolve("cairn-data").resolve("broker-1").toFile().isDirectory(),
                    "log.dirs=./cairn-data/broker-1 is relative to the working directory");
        } finally {
            for (LoggedProcess broker : brokers) {
                broker.close();
            }
        }
    }

    /** No overrides when the files' fixed ports are free; otherwise free ports for every listener. */
    private static List<List<String>> portOverrides() throws IOException {
        List<List<String>> overrides = new ArrayList<>();
        if (allFree(FIXED_PORTS)) {
            System.out.println("SampleClusterConfigIT: the sample configs' fixed ports are free; files used as is");
            for (int node = 1; node <= 3; node++) {
                overrides.add(List.of());
            }
            return overrides;
        }
        System.out.println("SampleClusterConfigIT: a fixed port of the sample configs is taken; listeners moved "
                + "to free ports with --set");
        int[] kafka = {BrokerFixture.freePort(), BrokerFixture.freePort(), BrokerFixture.freePort()};
        int[] raft = {BrokerFixture.freePort(), BrokerFixture.freePort(), BrokerFixture.freePort()};
        String voters = "1@127.0.0.1:" + raft[0] + ",2@127.0.0.1:" + raft[1] + ",3@127.0.0.1:" + raft[2];
        for (int i = 0; i < 3; i++) {
            overrides.add(List.of("--set", "listeners=127.0.0.1:" + kafka[i], "--set",
                    "raft.listener=127.0.0.1:" + raft[i], "--set", "raft.voters=" + voters));
        }
        return overrides;
    }

    private static List<String> kafkaAddresses(List<List<String>> overrides) {
        List<String> addresses = new ArrayList<>();
        for (int node = 1; node <= 3; node++) {
            List<String> set = overrides.get(node - 1);
            addresses.add(set.isEmpty() ? "127.0.0.1:" + node + "9092" : set.get(1).substring("listeners=".length()));
        }
        return addresses;
    }

    private static boolean allFree(int[] ports) {
        for (int port : ports) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }

    /** Runs the broker jar's CLI as a user would; returns its stdout after checking its exit code. */
    private String cli(int expectedExit, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(LoggedProcess.javaCommand(), "-Xmx128m", "-jar",
                LoggedProcess.brokerJar().toString()));
        command.addAll(List.of(args));
        Path log = dir.resolve("cli.log");
        try (LoggedProcess cli = LoggedProcess.start(command, Map.of(), dir, log)) {
            int exit = cli.awaitExit();
            String output = cli.log();
            assertEquals(expectedExit, exit, String.join(" ", args) + " printed:\n" + output);
            return output;
        }
    }

    /** Waits until describe shows every partition with three replicas, all in sync. */
    private void awaitFullIsr(String bootstrap) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        String described = "";
        while (System.nanoTime() < deadline) {
            described = cli(0, "topics", "describe", "--bootstrap-server", bootstrap, "--topic", TOPIC);
            assertTrue(described.startsWith("Topic: " + TOPIC + "\tPartitionCount: " + PARTITIONS
                    + "\tReplicationFactor: 3\n"), described);
            long fullIsr = described.lines().filter(line -> line.matches(".*\tReplicas: \\d,\\d,\\d\tIsr: \\d,\\d,\\d"))
                    .count();
            if (fullIsr == PARTITIONS) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
        throw new AssertionError("not every partition has 3 in-sync replicas:\n" + described);
    }

    private static List<RecordMetadata> produce(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS; i++) {
                futures.add(producer.send(new ProducerRecord<>(TOPIC, "key-" + i, "value-" + i)));
            }
            producer.flush();
        }
        List<RecordMetadata> acks = new ArrayList<>();
        for (Future<RecordMetadata> future : futures) {
            acks.add(future.get(WAIT_MS_MAX, TimeUnit.MILLISECONDS));
        }
        return acks;
    }

    private static int consumeAll(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int consumed = 0;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
            while (consumed < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    assertTrue(record.value().startsWith("value-"), record.value());
                    consumed++;
                }
            }
            return consumed;
        }
    }
}
