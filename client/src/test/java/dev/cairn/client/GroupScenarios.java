package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consumer groups with Cairn's consumer (classic protocol), written once and run against each broker under test:
 * three members joining one at a time and one leaving while a producer writes, for both assignors; and a group
 * shared with a kafka-clients consumer, which only works if the subscription and assignment bytes are Kafka's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
abstract class GroupScenarios {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 30_000;
    /** The longest any single condition in these scenarios is waited for. */
    private static final long CONDITION_TIMEOUT_MS = 90_000;
    private BrokerUnderTest broker;

    abstract BrokerUnderTest startBroker(Path dataDir) throws Exception;

    int replicationFactor() {
        return 1;
    }

    @BeforeAll
    void start(@TempDir Path dataDir) throws Exception {
        broker = startBroker(dataDir);
    }

    @AfterAll
    void stop() throws Exception {
        broker.close();
    }

    private void createTopic(String topic) {
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(broker.bootstrap())
                .build())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, replicationFactor())));
        }
    }

    static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONDITION_TIMEOUT_MS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** What every member saw: the values read, duplicates, and which member owns each partition right now. */
    private static final class GroupLedger {
        final Set<String> values = ConcurrentHashMap.newKeySet();
        final AtomicInteger duplicates = new AtomicInteger();
        final Map<TopicPartition, String> owners = new ConcurrentHashMap<>();
        final List<String> violations = new CopyOnWriteArrayList<>();

        void onRecord(ConsumerRecord record) {
            if (!values.add(new String(record.value(), StandardCharsets.UTF_8))) {
                duplicates.incrementAndGet();
            }
        }
    }

    /** A Cairn consumer on its own thread: poll, commit after each poll, commit on revoke. */
    private final class Member implements AutoCloseable {
        final String name;
        final AtomicBoolean running = new AtomicBoolean(true);
        final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
        final Thread thread;
        volatile Throwable failure;

        Member(String name, String group, String topic, String assignor, GroupLedger ledger) {
            this.name = name;
            ConsumerConfig config = ConsumerConfig.builder().bootstrapServers(broker.bootstrap()).clientId(name)
                    .groupId(group).assignors(assignor).autoCommit(false).heartbeatIntervalMs(300)
                    .sessionTimeoutMs(10_000).offsetReset(ConsumerConfig.OffsetReset.EARLIEST).build();
            thread = new Thread(() -> run(config, topic, ledger), name);
            thread.start();
        }

        private void run(ConsumerConfig config, String topic, GroupLedger ledger) {
            try (CairnConsumer consumer = CairnConsumer.create(config)) {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        consumer.commitSync();
                        partitions.forEach(partition -> {
                            owned.remove(partition);
                            ledger.owners.remove(partition, name);
                        });
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        partitions.forEach(partition -> {
                            String previous = ledger.owners.putIfAbsent(partition, name);
                            if (previous != null) {
                                ledger.violations.add(partition + " assigned to " + name + " while " + previous
                                        + " owns it");
                            }
                            owned.add(partition);
                        });
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        ledger.violations.add(name + " lost " + partitions);
                        onPartitionsRevoked(partitions);
                    }
                });
                while (running.get()) {
                    List<ConsumerRecord> records = consumer.poll(Duration.ofMillis(200));
                    records.forEach(ledger::onRecord);
                    if (!records.isEmpty()) {
                        consumer.commitSync();
                    }
                }
            } catch (Throwable failed) {
                failure = failed;
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(CONDITION_TIMEOUT_MS);
            assertFalse(thread.isAlive(), name + " did not stop");
        }
    }

    private Thread produceInBackground(String topic, int records, AtomicInteger acknowledged) {
        Thread producerThread = new Thread(() -> {
            try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                    .bootstrapServers(broker.bootstrap()).lingerMs(5).build())) {
                for (int i = 0; i < records; i++) {
                    byte[] value = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
                    producer.send(new ProducerRecord(topic, value, value))
                            .thenRun(acknowledged::incrementAndGet);
                    if (i % 1_000 == 999) {
                        // Spread the writes over the membership changes rather than writing all at once.
                        producer.flush(Duration.ofSeconds(60));
                        TimeUnit.MILLISECONDS.sleep(100);
                    }
                }
                producer.flush(Duration.ofSeconds(60));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }, "group-producer");
        producerThread.start();
        return producerThread;
    }

    @ParameterizedTest
    @ValueSource(strings = {"range", "cooperative-sticky"})
    void threeMembersRebalanceWhileConsumingEveryRecordOnce(String assignor) throws Exception {
        String topic = "group-" + assignor;
        String group = "g-" + assignor;
        createTopic(topic);
        GroupLedger ledger = new GroupLedger();
        AtomicInteger acknowledged = new AtomicInteger();
        Thread producer = produceInBackground(topic, RECORDS, acknowledged);
        List<Member> members = new ArrayList<>();
        try {
            members.add(new Member("m1", group, topic, assignor, ledger));
            awaitCondition("m1 owns all partitions", () -> members.get(0).owned.size() == PARTITIONS);
            members.add(new Member("m2", group, topic, assignor, ledger));
            awaitCondition("m2 gets partitions", () -> members.get(1).owned.size() == PARTITIONS / 2);
            members.add(new Member("m3", group, topic, assignor, ledger));
            awaitCondition("three members share the partitions", () -> members.stream()
                    .allMatch(member -> member.owned.size() == PARTITIONS / 3));
            members.get(1).close();
            awaitCondition("m1 and m3 take over m2's partitions", () -> members.get(0).owned.size()
                    + members.get(2).owned.size() == PARTITIONS);
            producer.join(CONDITION_TIMEOUT_MS);
            assertEquals(RECORDS, acknowledged.get(), "records acknowledged");
            awaitCondition("every record consumed", () -> ledger.values.size() >= RECORDS);
        } finally {
            for (Member member : members) {
                member.close();
            }
        }
        for (Member member : members) {
            assertEquals(null, member.failure, member.name + " failed");
        }
        assertEquals(List.of(), ledger.violations, "ownership");
        assertEquals(RECORDS, ledger.values.size(), "distinct records consumed");
        assertEquals(0, ledger.duplicates.get(), "records consumed twice despite commit on revoke");
    }

    @Test
    void cairnAndKafkaConsumersShareOneGroup() throws Exception {
        String topic = "group-mixed";
        String group = "g-mixed";
        createTopic(topic);
        GroupLedger ledger = new GroupLedger();
        AtomicInteger acknowledged = new AtomicInteger();
        Set<String> kafkaValues = ConcurrentHashMap.newKeySet();
        Set<Integer> kafkaPartitions = ConcurrentHashMap.newKeySet();
        Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrap());
        props.put("group.id", group);
        props.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        props.put("heartbeat.interval.ms", "300");
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        AtomicBoolean kafkaRunning = new AtomicBoolean(true);
        AtomicInteger kafkaDuplicates = new AtomicInteger();
        Thread kafkaMember = new Thread(() -> {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(topic));
                while (kafkaRunning.get()) {
                    var records = consumer.poll(Duration.ofMillis(200));
                    records.forEach(record -> {
                        String value = new String(record.value(), StandardCharsets.UTF_8);
                        if (!kafkaValues.add(value) | !ledger.values.add(value)) {
                            kafkaDuplicates.incrementAndGet();
                        }
                    });
                    kafkaPartitions.clear();
                    consumer.assignment().forEach(tp -> kafkaPartitions.add(tp.partition()));
                    if (!records.isEmpty()) {
                        consumer.commitSync();
                    }
                }
            }
        }, "kafka-member");
        kafkaMember.start();
        try {
            awaitCondition("the Kafka member owns all partitions", () -> kafkaPartitions.size() == PARTITIONS);
        } catch (AssertionError | InterruptedException failed) {
            kafkaRunning.set(false);
            throw failed;
        }
        try (Member cairnMember = new Member("cairn", group, topic, "cooperative-sticky", ledger)) {
            awaitCondition("the two members split the partitions", () -> cairnMember.owned.size() == PARTITIONS / 2
                    && kafkaPartitions.size() == PARTITIONS / 2);
            Thread producer = produceInBackground(topic, RECORDS / 3, acknowledged);
            producer.join(CONDITION_TIMEOUT_MS);
            awaitCondition("every record consumed", () -> ledger.values.size() >= RECORDS / 3);
            assertEquals(null, cairnMember.failure, "Cairn member failed");
        } finally {
            kafkaRunning.set(false);
            kafkaMember.join(CONDITION_TIMEOUT_MS);
        }
        assertEquals(RECORDS / 3, ledger.values.size(), "distinct records consumed");
        assertTrue(kafkaValues.size() > 0 && kafkaValues.size() < RECORDS / 3, "both members consumed");
        assertEquals(0, ledger.duplicates.get() + kafkaDuplicates.get(), "records consumed twice");
        assertEquals(List.of(), ledger.violations, "ownership");
    }
}
