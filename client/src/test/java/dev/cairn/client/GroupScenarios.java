package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
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
 * three members joining one at a time and one leaving while a producer writes, for both assignors; a group
 * shared with a kafka-clients consumer, which only works if the subscription and assignment bytes are Kafka's; a
 * cooperative member that goes on consuming while a rebalance is held open (KIP-429); and a throwing rebalance
 * listener, reported after the rebalance completes as kafka-clients does; and partitions added to a subscribed
 * topic (CreatePartitions, through Cairn's admin client) being assigned and consumed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
abstract class GroupScenarios {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 30_000;
    /** The longest any single condition in these scenarios is waited for. */
    private static final long CONDITION_TIMEOUT_MS = 90_000;
    /**
     * max.poll.interval.ms (so also the rebalance timeout) of the members in the held-open rebalance: a member that
     * stops polling holds a rebalance open this long. Above Kafka's minimum session timeout of 6 s.
     */
    private static final int STALLED_MEMBER_POLL_INTERVAL_MS = 8_000;
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

    String bootstrap() {
        return broker.bootstrap();
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

    /** metadata.max.age.ms of the consumer watching for added partitions (Kafka's default is 300000). */
    private static final long METADATA_MAX_AGE_MS = 1_000;

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

    private ConsumerConfig.Builder memberConfig(String name, String group, String assignor) {
        return ConsumerConfig.builder().bootstrapServers(broker.bootstrap()).clientId(name)
                .groupId(group).assignors(assignor).autoCommit(false).heartbeatIntervalMs(300)
                .sessionTimeoutMs(10_000).offsetReset(ConsumerConfig.OffsetReset.EARLIEST);
    }

    /**
     * Commits the consumer's positions. During its own rebalance the commit is refused with REBALANCE_IN_PROGRESS
     * (as kafka-clients refuses it); the positions then stay uncommitted until the next commit. Returns false then.
     */
    private static boolean commitUnlessRebalancing(CairnConsumer consumer) {
        try {
            consumer.commitSync();
            return true;
        } catch (CairnApiException refused) {
            if (refused.errorCode() != ErrorCode.REBALANCE_IN_PROGRESS) {
                throw refused;
            }
            return false;
        }
    }

    /** A Cairn consumer on its own thread: poll, commit after each poll, commit on revoke. */
    private final class Member implements AutoCloseable {
        final String name;
        final AtomicBoolean running = new AtomicBoolean(true);
        final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
        /** Whether the member was (re)joining when its last poll returned. */
        volatile boolean rebalancing = true;
        final Thread thread;
        volatile Throwable failure;

        Member(String name, String group, String topic, String assignor, GroupLedger ledger) {
            this(memberConfig(name, group, assignor).build(), topic, ledger);
        }

        Member(ConsumerConfig config, String topic, GroupLedger ledger) {
            this.name = config.clientId();
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
                        // Closing mid-rebalance loses the partitions (kafka-clients' onLeavePrepare): not a fault.
                        if (running.get()) {
                            ledger.violations.add(name + " lost " + partitions);
                        }
                        partitions.forEach(partition -> {
                            owned.remove(partition);
                            ledger.owners.remove(partition, name);
                        });
                    }
                });
                while (running.get()) {
                    List<ConsumerRecord> records = consumer.poll(Duration.ofMillis(200));
                    records.forEach(ledger::onRecord);
                    if (!records.isEmpty()) {
                        commitUnlessRebalancing(consumer);
                    }
                    rebalancing = consumer.rebalanceInProgress();
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
            // Not mid-rebalance either: m2 closing during one would lose its partitions uncommitted.
            awaitCondition("three members share the partitions", () -> members.stream()
                    .allMatch(member -> member.owned.size() == PARTITIONS / 3 && !member.rebalancing));
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

    /**
     * KIP-429: a cooperative member keeps the partitions it owns through a rebalance, so kafka-clients goes on
     * fetching them while its JoinGroup waits. The rebalance is held open by a member that stops polling: the
     * coordinator waits for it until its max.poll.interval.ms runs out and its heartbeat thread leaves the group.
     * Meanwhile the keeper must go on returning records; its commits are refused (REBALANCE_IN_PROGRESS) and the
     * positions are committed once the rebalance is over, so at the end every record is consumed and committed.
     */
    @Test
    void cooperativeMemberKeepsConsumingWhileARebalanceIsHeldOpen() throws Exception {
        String topic = "group-held-open";
        String group = "g-held-open";
        createTopic(topic);
        GroupLedger ledger = new GroupLedger();
        AtomicInteger whileRebalancing = new AtomicInteger();
        AtomicInteger commitsRefused = new AtomicInteger();
        int[] producedPerPartition = new int[PARTITIONS];
        AtomicInteger produced = new AtomicInteger();
        try (CairnConsumer keeper = CairnConsumer.create(heldOpenConfig("keeper", group));
             CairnConsumer staller = CairnConsumer.create(heldOpenConfig("staller", group));
             CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                     .bootstrapServers(broker.bootstrap()).lingerMs(1).build())) {
            keeper.subscribe(List.of(topic));
            staller.subscribe(List.of(topic));
            awaitCondition("keeper and staller split the partitions", () -> {
                keeper.poll(Duration.ofMillis(100)).forEach(ledger::onRecord);
                staller.poll(Duration.ofMillis(100)).forEach(ledger::onRecord);
                return keeper.assignment().size() == PARTITIONS / 2 && staller.assignment().size() == PARTITIONS / 2
                        && !keeper.rebalanceInProgress() && !staller.rebalanceInProgress();
            });
            // From here on the staller is not polled: the joiner's rebalance waits for it.
            try (Member joiner = new Member(heldOpenConfig("joiner", group), topic, ledger)) {
                awaitCondition("the joiner gets the staller's partitions", () -> {
                    for (int partition = 0; partition < PARTITIONS; partition++) {
                        byte[] value = ("v" + produced.getAndIncrement()).getBytes(StandardCharsets.UTF_8);
                        producer.send(new ProducerRecord(topic, partition, null, null, value, List.of()));
                        producedPerPartition[partition]++;
                    }
                    List<ConsumerRecord> records = keeper.poll(Duration.ofMillis(100));
                    records.forEach(ledger::onRecord);
                    if (keeper.rebalanceInProgress()) {
                        whileRebalancing.addAndGet(records.size());
                    }
                    if (!records.isEmpty() && !commitUnlessRebalancing(keeper)) {
                        commitsRefused.incrementAndGet();
                    }
                    return joiner.owned.size() == PARTITIONS / 2 && !keeper.rebalanceInProgress();
                });
                producer.flush(Duration.ofSeconds(60));
                awaitCondition("every record consumed and the keeper's positions committed", () -> {
                    keeper.poll(Duration.ofMillis(100)).forEach(ledger::onRecord);
                    boolean committed = commitUnlessRebalancing(keeper);
                    return committed && ledger.values.size() >= produced.get();
                });
                assertEquals(null, joiner.failure, "joiner failed");
            }
            assertTrue(whileRebalancing.get() > 0, "records returned while the keeper's rebalance was under way");
            assertEquals(PARTITIONS / 2, keeper.assignment().size(), "the keeper kept its partitions");
            Map<TopicPartition, Long> committed = keeper.committed(keeper.assignment());
            for (TopicPartition partition : keeper.assignment()) {
                assertEquals((long) producedPerPartition[partition.partition()], committed.get(partition),
                        "committed offset of " + partition + " (" + commitsRefused.get()
                                + " commits refused during the rebalance)");
            }
        }
        assertEquals(produced.get(), ledger.values.size(), "distinct records consumed");
        assertEquals(List.of(), ledger.violations, "ownership");
    }

    /**
     * The group leader re-reads the subscribed topics' metadata every metadata.max.age.ms and rebalances when a
     * partition count changed (kafka-clients ConsumerCoordinator: assignment snapshot vs metadata snapshot; Cairn's
     * PartitionCountWatch), so the partitions added by CreatePartitions are assigned and consumed without any
     * member joining or leaving.
     */
    @Test
    void partitionsAddedToASubscribedTopicAreAssignedAndConsumed() throws Exception {
        String topic = "group-growing";
        Set<Integer> partitionsRead = ConcurrentHashMap.newKeySet();
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(broker.bootstrap()).build());
             CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                     .bootstrapServers(broker.bootstrap()).build());
             CairnConsumer consumer = CairnConsumer.create(ConsumerConfig.builder().bootstrapServers(bootstrap())
                     .groupId("g-growing").assignors("cooperative-sticky").autoCommit(false)
                     .offsetReset(ConsumerConfig.OffsetReset.EARLIEST).metadataMaxAgeMs(METADATA_MAX_AGE_MS)
                     .build())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, replicationFactor())));
            consumer.subscribe(List.of(topic));
            awaitCondition("the two partitions assigned", () -> {
                consumer.poll(Duration.ofMillis(100));
                return consumer.assignment().size() == 2;
            });
            admin.createPartitions(Map.of(topic, 4));
            for (int partition = 0; partition < 4; partition++) {
                producer.send(new ProducerRecord(topic, partition, null, null,
                        ("p" + partition).getBytes(StandardCharsets.UTF_8), List.of()));
            }
            producer.flush(Duration.ofSeconds(60));
            awaitCondition("a record read from each of the four partitions", () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> partitionsRead.add(record.partition()));
                return partitionsRead.size() == 4;
            });
            assertEquals(Set.of(0, 1, 2, 3), consumer.assignment().stream().map(TopicPartition::partition)
                    .collect(Collectors.toSet()), "assignment after the partitions were added");
        }
    }

    private ConsumerConfig heldOpenConfig(String name, String group) {
        return memberConfig(name, group, "cooperative-sticky")
                .set(ConsumerConfig.MAX_POLL_INTERVAL_MS, STALLED_MEMBER_POLL_INTERVAL_MS).build();
    }

    /**
     * kafka-clients finishes the rebalance when the listener throws and then throws a KafkaException wrapping the
     * listener's exception from poll ("User rebalance callback throws an error"); Cairn throws a retriable
     * CairnRebalanceListenerException, and the next poll goes on with the new assignment.
     */
    @Test
    void aThrowingListenerIsReportedAfterTheRebalanceCompletes() throws Exception {
        String topic = "group-throwing-listener";
        createTopic(topic);
        IllegalStateException thrownByListener = new IllegalStateException("listener fails on purpose");
        AtomicInteger assignedCalls = new AtomicInteger();
        AtomicReference<CairnRebalanceListenerException> reported = new AtomicReference<>();
        Set<String> values = new HashSet<>();
        try (CairnConsumer consumer = CairnConsumer.create(memberConfig("thrower", "g-throwing-listener",
                "cooperative-sticky").build());
             CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                     .bootstrapServers(broker.bootstrap()).build())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    assignedCalls.incrementAndGet();
                    throw thrownByListener;
                }
            });
            awaitCondition("poll reports the listener's exception", () -> {
                try {
                    consumer.poll(Duration.ofMillis(100));
                    return false;
                } catch (CairnRebalanceListenerException failed) {
                    reported.set(failed);
                    return true;
                }
            });
            assertSame(thrownByListener, reported.get().getCause());
            assertTrue(reported.get().isRetriable(), "poll may be called again");
            assertEquals(PARTITIONS, consumer.assignment().size(), "the assignment took effect");
            for (int partition = 0; partition < PARTITIONS; partition++) {
                producer.send(new ProducerRecord(topic, partition, null, null,
                        ("v" + partition).getBytes(StandardCharsets.UTF_8), List.of()));
            }
            producer.flush(Duration.ofSeconds(60));
            awaitCondition("poll goes on after the failure", () -> {
                consumer.poll(Duration.ofMillis(100))
                        .forEach(record -> values.add(new String(record.value(), StandardCharsets.UTF_8)));
                return values.size() == PARTITIONS;
            });
        }
        assertEquals(1, assignedCalls.get(), "onPartitionsAssigned calls");
    }
}
