package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 10 (and issue 18): stopping every broker of a three-broker cluster at once finishes promptly. The
 * three brokers close concurrently while a producer (acks=all) writes to a replication-factor-3 topic; each close
 * must return within {@link #CLOSE_SECONDS_MAX}, although the peers it would need for any quorum are closing too.
 * Closing is not a crash: started again, the brokers serve every record acknowledged before or during the close.
 */
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class StopAllBrokersIT {
    private static final String TOPIC = "stop-all";
    private static final int PARTITIONS = 12;
    private static final int RECORDS_BEFORE_CLOSE = 600;
    /** Consumer groups reading (and committing) while the brokers close. */
    private static final int GROUPS = 3;
    /** How long one broker's close may take while its peers close too: Broker.CLOSE_MS_MAX, rounded up. */
    private static final long CLOSE_SECONDS_MAX = 30;
    /** How long the test waits for a step of the cluster (a topic's leaders, acknowledgements, a restart). */
    private static final long WAIT_SECONDS = 120;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void closingAllThreeTogetherFinishesPromptlyAndKeepsAcknowledgedRecords() throws Exception {
        assertTrue(Broker.CLOSE_MS_MAX <= TimeUnit.SECONDS.toMillis(CLOSE_SECONDS_MAX), "the bound tested is the "
                + "broker's own (" + Broker.CLOSE_MS_MAX + " ms)");
        cluster = InProcessCluster.start(3, dir, Map.of("default.replication.factor", "3"));
        createTopic();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        try (KafkaProducer<String, String> producer = producer()) {
            List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < RECORDS_BEFORE_CLOSE; i++) {
                String value = "before-" + i;
                sends.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value),
                        (metadata, error) -> {
                            if (error == null) {
                                acknowledged.add(value);
                            }
                        }));
            }
            for (java.util.concurrent.Future<?> send : sends) {
                send.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            assertEquals(RECORDS_BEFORE_CLOSE, acknowledged.size());

            // A producer keeps writing while the brokers close: its requests in flight may fail, the ones
            // acknowledged must survive.
            AtomicBoolean producing = new AtomicBoolean(true);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                for (long i = 0; producing.get(); i++) {
                    String value = "during-" + i;
                    producer.send(new ProducerRecord<>(TOPIC, (int) (i % PARTITIONS), null, value),
                            (metadata, error) -> {
                                if (error == null) {
                                    acknowledged.add(value);
                                }
                            });
                    sleepMs(2);
                }
            });
            // Consumer groups commit offsets every 100 ms: a group's coordinator commits for partitions other brokers
            // lead through its Raft clients to those leaders, which hold requests when the close begins.
            List<CompletableFuture<Void>> groups = new ArrayList<>();
            for (int g = 0; g < GROUPS; g++) {
                groups.add(consumeInGroup("stop-all-group-" + g, producing));
            }
            long target = RECORDS_BEFORE_CLOSE + 200;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (acknowledged.size() < target && System.nanoTime() < deadline) {
                sleepMs(50);
            }
            assertTrue(acknowledged.size() >= target, "the writer's records are acknowledged before the close");
            awaitCommittedOffsets();

            List<Long> closeMs = closeAllTogether();
            System.out.println("StopAllBrokersIT: closes took " + closeMs + " ms");
            for (int node = 1; node <= 3; node++) {
                assertTrue(closeMs.get(node - 1) <= TimeUnit.SECONDS.toMillis(CLOSE_SECONDS_MAX),
                        "broker " + node + " closed in " + closeMs.get(node - 1) + " ms");
            }
            producing.set(false);
            writer.get(WAIT_SECONDS, TimeUnit.SECONDS);
            for (CompletableFuture<Void> group : groups) {
                group.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            // Sends still waiting fail now: no broker is left to answer them.
            producer.close(Duration.ZERO);
        }

        restartAllTogether();
        awaitLeaders();
        Set<String> read = consumeAll(acknowledged);
        System.out.println("StopAllBrokersIT: " + acknowledged.size() + " records acknowledged, " + read.size()
                + " read after the restart");
        Set<String> lost = new TreeSet<>(acknowledged);
        lost.removeAll(read);
        assertEquals(Set.of(), lost, "acknowledged records lost by closing every broker (" + acknowledged.size()
                + " acknowledged, " + read.size() + " read)");
    }

    /** Closes the three brokers on three threads at once; returns how long each close took, by node id. */
    private List<Long> closeAllTogether() throws Exception {
        List<CompletableFuture<Long>> closing = new ArrayList<>();
        for (int node = 1; node <= 3; node++) {
            int nodeId = node;
            closing.add(CompletableFuture.supplyAsync(() -> {
                long start = System.nanoTime();
                try {
                    cluster.stop(nodeId);
                } catch (java.io.IOException e) {
                    throw new IllegalStateException("broker " + nodeId + " failed to close", e);
                }
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }, runnable -> new Thread(runnable, "close-broker-" + nodeId).start()));
        }
        List<Long> closeMs = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_SECONDS_MAX * 3);
        for (int node = 1; node <= 3; node++) {
            try {
                closeMs.add(closing.get(node - 1).get(Math.max(1, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                fail("broker " + node + " did not close within " + CLOSE_SECONDS_MAX * 3 + " s; threads:\n"
                        + threadDump());
            }
        }
        return closeMs;
    }

    /** Starts the three brokers again together (each one's start waits for a metadata majority). */
    private void restartAllTogether() throws Exception {
        List<CompletableFuture<Broker>> starting = new ArrayList<>();
        for (int node = 1; node <= 3; node++) {
            int nodeId = node;
            starting.add(CompletableFuture.supplyAsync(() -> cluster.restart(nodeId),
                    runnable -> new Thread(runnable, "restart-broker-" + nodeId).start()));
        }
        for (CompletableFuture<Broker> broker : starting) {
            broker.get(InProcessCluster.START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        return Admin.create(props);
    }

    private void createTopic() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        awaitLeaders();
    }

    /** Waits until every partition of the topic has a leader and three in-sync replicas. */
    private void awaitLeaders() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        String last = "nothing";
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                try {
                    TopicDescription topic = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                            .get(WAIT_SECONDS, TimeUnit.SECONDS).get(TOPIC);
                    last = topic.partitions().toString();
                    if (topic.partitions().size() == PARTITIONS && topic.partitions().stream()
                            .allMatch(p -> p.leader() != null && p.leader().id() >= 0 && p.isr().size() == 3)) {
                        return;
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    last = e.getCause().toString();
                }
                sleepMs(200);
            }
        }
        fail(TOPIC + " has no leader with three in-sync replicas on every partition within " + WAIT_SECONDS
                + " s; last seen " + last);
    }

    private KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        // Once the brokers are gone a send waits for metadata at most this long, then fails.
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    /** Waits until every group has committed offsets for more than half of the partitions. */
    private void awaitCommittedOffsets() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        try (Admin admin = admin()) {
            for (int g = 0; g < GROUPS; g++) {
                String group = "stop-all-group-" + g;
                int committed = 0;
                while (committed <= PARTITIONS / 2 && System.nanoTime() < deadline) {
                    try {
                        committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                                .get(WAIT_SECONDS, TimeUnit.SECONDS).size();
                    } catch (java.util.concurrent.ExecutionException e) {
                        committed = 0;
                    }
                    if (committed <= PARTITIONS / 2) {
                        sleepMs(200);
                    }
                }
                assertTrue(committed > PARTITIONS / 2, group + " committed offsets for " + committed + " partitions");
            }
        }
    }

    /** A member of {@code group} polls and commits every 100 ms on its own thread while {@code running}. */
    private CompletableFuture<Void> consumeInGroup(String group, AtomicBoolean running) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "100");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return CompletableFuture.runAsync(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(TOPIC));
                while (running.get()) {
                    try {
                        consumer.poll(Duration.ofMillis(100));
                    } catch (org.apache.kafka.common.KafkaException e) {
                        // The brokers are closing: the member keeps trying until the test stops it.
                        sleepMs(100);
                    }
                }
                consumer.close(CloseOptions.timeout(Duration.ZERO));
            }
        }, runnable -> new Thread(runnable, "consumer-" + group).start());
    }

    /** Reads the topic from the beginning until every {@code expected} value was seen or the wait ends. */
    private Set<String> consumeAll(Set<String> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Set<String> read = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!read.containsAll(expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    read.add(record.value());
                }
            }
        }
        return read;
    }

    private static String threadDump() {
        StringBuilder dump = new StringBuilder();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState()).append('\n');
            for (StackTraceElement frame : thread.getStackTrace()) {
                dump.append("    at ").append(frame).append('\n');
            }
        }
        return dump.toString();
    }

    private static void sleepMs(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
