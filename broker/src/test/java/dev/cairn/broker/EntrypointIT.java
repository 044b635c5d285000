package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image's start path outside Docker: {@code docker/entrypoint.sh} with the image's configuration
 * file ({@code docker/broker.properties}) and the environment overrides the compose file uses, pointed at loopback
 * ports and a temporary data directory. The script must exec the JVM (so the process it started is the broker,
 * and SIGTERM reaches it), the broker must serve Kafka clients and metrics, {@code entrypoint.sh healthcheck} must
 * pass, and SIGTERM must shut it down cleanly.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EntrypointIT {
    private static final long START_WAIT_MS_MAX = 90_000;
    private static final long HEALTHCHECK_WAIT_MS_MAX = 60_000;

    @TempDir
    Path dir;

    @Test
    void entrypointStartsABrokerFromTheImageConfigurationAndStopsOnSigterm() throws Exception {
        Path docker = Path.of("..", "docker").toAbsolutePath().normalize();
        int kafkaPort = BrokerFixture.freePort();
        Map<String, String> env = new HashMap<>();
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("CAIRN_JAR", LoggedProcess.brokerJar().toString());
        env.put("CAIRN_CONFIG", docker.resolve("broker.properties").toString());
        env.put("CAIRN_JAVA_OPTS", "-Xmx512m");
        // The image's file binds 0.0.0.0 and writes to /var/lib/cairn; a test stays on loopback and in its directory.
        env.put("CAIRN_LISTENERS", "127.0.0.1:" + kafkaPort);
        env.put("CAIRN_ADVERTISED_LISTENERS", "127.0.0.1:" + kafkaPort);
        env.put("CAIRN_RAFT_LISTENER", "127.0.0.1:" + BrokerFixture.freePort());
        env.put("CAIRN_METRICS_PORT", Integer.toString(BrokerFixture.freePort()));
        env.put("CAIRN_LOG_DIRS", dir.resolve("data").toString());
        env.put("CAIRN_NUM_PARTITIONS", "2");
        List<String> entrypoint = List.of("sh", docker.resolve("entrypoint.sh").toString());

        try (LoggedProcess broker = LoggedProcess.start(entrypoint, env, dir, dir.resolve("broker.log"))) {
            broker.awaitLog(" started: node.id=1", START_WAIT_MS_MAX);
            String command = ProcessHandle.of(broker.pid()).flatMap(p -> p.info().command()).orElse("");
            assertTrue(command.endsWith("java"), "the entrypoint must exec the JVM, but its process runs " + command);
            assertTrue(broker.log().contains("Prometheus metrics on http://127.0.0.1:"), broker.log());

            assertHealthy(entrypoint, env);
            assertEquals(2, produceAndDescribe("127.0.0.1:" + kafkaPort), "num.partitions from CAIRN_NUM_PARTITIONS");

            int exit = broker.terminate();
            assertFalse(broker.isAlive());
            // 143 = 128 + SIGTERM: the JVM ran its shutdown hooks and exited on the signal.
            assertEquals(143, exit, broker.log());
            assertTrue(broker.log().contains("Cairn node 1 stopped"), broker.log());
        }
    }

    /** {@code entrypoint.sh healthcheck}, as the image's HEALTHCHECK runs it, exits 0 once the broker serves. */
    private void assertHealthy(List<String> entrypoint, Map<String, String> env) throws Exception {
        List<String> command = new ArrayList<>(entrypoint);
        command.add("healthcheck");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HEALTHCHECK_WAIT_MS_MAX);
        String last = "";
        while (System.nanoTime() < deadline) {
            Path log = dir.resolve("healthcheck.log");
            try (LoggedProcess check = LoggedProcess.start(command, env, dir, log)) {
                int exit = check.awaitExit();
                last = check.log();
                if (exit == 0) {
                    assertTrue(last.contains("healthy"), last);
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
        throw new AssertionError("healthcheck never passed; last output:\n" + last);
    }

    /** Produces a record to a new topic with kafka-clients and returns that topic's partition count. */
    private static int produceAndDescribe(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>("from-entrypoint", "k", "v")).get(60, TimeUnit.SECONDS);
        }
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            return admin.describeTopics(List.of("from-entrypoint")).allTopicNames().get(60, TimeUnit.SECONDS)
                    .get("from-entrypoint").partitions().size();
        }
    }
}
