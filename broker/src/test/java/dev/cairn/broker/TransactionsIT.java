package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own transactional producer against Cairn (issue 20), with its defaults: committed transactions are read
 * by read_committed consumers, aborted ones never; a new session of the same transactional id fences the old one;
 * a transaction left open past its timeout is aborted by the coordinator. One broker and three (RF=3).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TransactionsIT {
    private static final String TOPIC = "txn-orders";
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start(int brokers) throws Exception {
        start(brokers, Map.of());
    }

    private void start(int brokers, Map<String, String> settings) throws Exception {
        cluster = InProcessCluster.start(brokers, dir, settings);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) brokers))).all().get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void oneBrokerServesCommittedAndAbortedTransactions() throws Exception {
        start(1);
        committedAndAbortedTransactions();
    }

    @Test
    void threeBrokersServeCommittedAndAbortedTransactions() throws Exception {
        start(3);
        committedAndAbortedTransactions();
    }

    private void committedAndAbortedTransactions() {
        try (KafkaProducer<String, String> producer = producer("orders-app", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, "committed-a", 10);
            producer.commitTransaction();
            producer.beginTransaction();
            sendAll(producer, "aborted", 5);
            producer.abortTransaction();
            producer.beginTransaction();
            sendAll(producer, "committed-b", 3);
            producer.commitTransaction();
        }
        List<String> committed = readAll("read_committed", 13);
        assertEquals(13, committed.size(), "committed records: " + committed);
        assertTrue(committed.stream().noneMatch(value -> value.startsWith("aborted")), committed.toString());
        assertEquals(18, readAll("read_uncommitted", 18).size());
    }

    @Test
    void aNewSessionFencesTheOldProducerAndAbortsItsOpenTransaction() throws Exception {
        start(1);
        try (KafkaProducer<String, String> zombie = producer("fenced-app", Map.of());
                KafkaProducer<String, String> successor = producer("fenced-app", Map.of())) {
            zombie.initTransactions();
            zombie.beginTransaction();
            sendAll(zombie, "zombie", 4);
            successor.initTransactions();
            assertThrows(ProducerFencedException.class, zombie::commitTransaction);
            successor.beginTransaction();
            sendAll(successor, "successor", 2);
            successor.commitTransaction();
        }
        List<String> committed = readAll("read_committed", 2);
        assertEquals(List.of("successor-0", "successor-1"), committed.stream().sorted().toList());
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsAborted() throws Exception {
        start(1);
        try (KafkaProducer<String, String> producer = producer("slow-app",
                Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "2000"))) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, "expired", 3);
            long deadline = System.currentTimeMillis() + WAIT_MS;
            List<String> visible = List.of();
            while (System.currentTimeMillis() < deadline && visible.isEmpty()) {
                // The abort moves the last stable offset past the transaction: read_uncommitted sees it, and a
                // read_committed reader is no longer held back (it finds nothing).
                visible = readAll("read_committed", 1, Duration.ofSeconds(1));
                if (endOffsetCommitted() >= 4) {
                    break;
                }
            }
            assertEquals(List.of(), visible);
            assertTrue(endOffsetCommitted() >= 4, "the abort marker follows the three records of one partition");
            assertThrows(KafkaException.class, producer::commitTransaction);
        }
    }

    /**
     * Consume-transform-produce: the input's offsets are committed by the same transaction that writes the output,
     * so an aborted round commits neither, and the round that commits both makes each input appear once.
     */
    @Test
    void offsetsCommittedInATransactionTakeEffectOnlyWithIt() throws Exception {
        start(1);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic("txn-input", 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> plain = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
                for (int i = 0; i < 20; i++) {
                    plain.send(new ProducerRecord<>("txn-input", i % 2, null, "in-" + i));
                }
            }
            try (KafkaProducer<String, String> producer = producer("etl-app", Map.of())) {
                producer.initTransactions();
                transformRound(producer, false);
                assertTrue(admin.listConsumerGroupOffsets("etl").partitionsToOffsetAndMetadata()
                        .get(60, TimeUnit.SECONDS).isEmpty(), "an aborted transaction commits no offset");
                transformRound(producer, true);
            }
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = admin
                    .listConsumerGroupOffsets("etl").partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            assertEquals(10L, committed.get(new TopicPartition("txn-input", 0)).offset());
            assertEquals(10L, committed.get(new TopicPartition("txn-input", 1)).offset());
        }
        List<String> output = readAll("read_committed", 20);
        assertEquals(20, output.size(), output.toString());
        assertEquals(20, output.stream().distinct().count(), "each input transformed once: " + output);
    }

    /** Reads the whole input from the group's committed position and writes it transformed, in one transaction. */
    private void transformRound(KafkaProducer<String, String> producer, boolean commit) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "etl");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> inputs = List.of(new TopicPartition("txn-input", 0),
                    new TopicPartition("txn-input", 1));
            consumer.assign(inputs);
            producer.beginTransaction();
            int read = 0;
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (read < 20 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    producer.send(new ProducerRecord<>(TOPIC, record.partition(), null, "out-" + record.value()));
                    read++;
                }
            }
            assertEquals(20, read, "the whole input, from the committed position");
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> positions = new HashMap<>();
            for (TopicPartition input : inputs) {
                positions.put(input, new org.apache.kafka.clients.consumer.OffsetAndMetadata(
                        consumer.position(input)));
            }
            producer.sendOffsetsToTransaction(positions, consumer.groupMetadata());
            if (commit) {
                producer.commitTransaction();
            } else {
                producer.abortTransaction();
            }
        }
    }

    /** The coordinator's state is replicated: its broker stops mid-transaction, and the transaction commits. */
    @Test
    void aTransactionCommitsAfterItsCoordinatorStops() throws Exception {
        start(3);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
                KafkaProducer<String, String> producer = producer("failover-app", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, "survivor", 4);
            int coordinator = admin.describeTransactions(List.of("failover-app")).description("failover-app")
                    .get(60, TimeUnit.SECONDS).coordinatorId();
            cluster.stop(coordinator);
            producer.commitTransaction();
        }
        List<String> committed = readAll("read_committed", 4);
        assertEquals(List.of("survivor-0", "survivor-1", "survivor-2", "survivor-3"),
                committed.stream().sorted().toList());
    }

    /** kafka-transactions.sh's calls: list, describe, and the producers of a partition with its open transaction. */
    @Test
    void adminToolsSeeTheOpenTransaction() throws Exception {
        start(1);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
                KafkaProducer<String, String> producer = producer("visible-app", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, "open", 2);

            List<org.apache.kafka.clients.admin.TransactionListing> listed = new ArrayList<>(
                    admin.listTransactions().all().get(60, TimeUnit.SECONDS));
            assertEquals(1, listed.size(), listed.toString());
            assertEquals("visible-app", listed.get(0).transactionalId());
            assertEquals(org.apache.kafka.clients.admin.TransactionState.ONGOING, listed.get(0).state());
            org.apache.kafka.clients.admin.TransactionDescription description = admin
                    .describeTransactions(List.of("visible-app")).description("visible-app").get(60, TimeUnit.SECONDS);
            assertEquals(org.apache.kafka.clients.admin.TransactionState.ONGOING, description.state());
            assertEquals(java.util.Set.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)),
                    description.topicPartitions());
            assertEquals(60_000, description.transactionTimeoutMs());
            var producers = admin.describeProducers(List.of(new TopicPartition(TOPIC, 0)))
                    .partitionResult(new TopicPartition(TOPIC, 0)).get(60, TimeUnit.SECONDS).activeProducers();
            assertEquals(1, producers.size());
            assertEquals(java.util.OptionalLong.of(0), producers.get(0).currentTransactionStartOffset());
            assertEquals(description.producerId(), producers.get(0).producerId());

            producer.commitTransaction();
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (System.currentTimeMillis() < deadline && admin.describeTransactions(List.of("visible-app"))
                    .description("visible-app").get(60, TimeUnit.SECONDS).state()
                    != org.apache.kafka.clients.admin.TransactionState.COMPLETE_COMMIT) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            assertEquals(org.apache.kafka.clients.admin.TransactionState.COMPLETE_COMMIT, admin.describeTransactions(
                    List.of("visible-app")).description("visible-app").get(60, TimeUnit.SECONDS).state());
            assertTrue(admin.describeProducers(List.of(new TopicPartition(TOPIC, 0))).partitionResult(
                    new TopicPartition(TOPIC, 0)).get(60, TimeUnit.SECONDS).activeProducers().get(0)
                    .currentTransactionStartOffset().isEmpty(), "no transaction open after its marker");

            // The coordinator's topic is internal, as Kafka's: listed only when asked for, and closed to producers.
            String state = "__transaction_state";
            assertTrue(!admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(state));
            assertTrue(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .listings().get(60, TimeUnit.SECONDS).stream().anyMatch(t -> t.name().equals(state)
                            && t.isInternal()));
            Map<String, Object> plain = new HashMap<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    cluster.bootstrap(), ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
            try (KafkaProducer<String, String> intruder = new KafkaProducer<>(plain)) {
                java.util.concurrent.ExecutionException refused = assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> intruder.send(new ProducerRecord<>(
                                state, 0, null, "forged")).get(60, TimeUnit.SECONDS));
                assertTrue(refused.getCause() instanceof org.apache.kafka.common.errors.InvalidTopicException,
                        refused.getCause().toString());
            }
        }
    }

    /**
     * kafka-transactions.sh abort: Admin's abortTransaction sends WriteTxnMarkers to the partition's leader, which
     * ends a transaction nobody ends (here a producer that stays silent) so read_committed readers move past it.
     */
    /**
     * Kafka's transactional.id.expiration.ms: a transactional id whose transaction ended and that nobody used since is
     * forgotten by its coordinator (Admin no longer lists it), and the id starts over when a producer comes back.
     */
    @Test
    void aTransactionalIdIdlePastItsExpirationIsForgotten() throws Exception {
        start(1, Map.of("transactional.id.expiration.ms", "5000",
                "transactions.remove.expired.transaction.cleanup.interval.ms", "200"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            long firstProducerId;
            try (KafkaProducer<String, String> producer = producer("expiring-app", Map.of())) {
                producer.initTransactions();
                producer.beginTransaction();
                sendAll(producer, "kept", 2);
                producer.commitTransaction();
                firstProducerId = admin.describeTransactions(List.of("expiring-app")).description("expiring-app")
                        .get(60, TimeUnit.SECONDS).producerId();
            }
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (System.currentTimeMillis() < deadline && !listedIds(admin).isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            assertEquals(List.of(), listedIds(admin), "the idle id expired");

            try (KafkaProducer<String, String> producer = producer("expiring-app", Map.of())) {
                producer.initTransactions();
                assertTrue(admin.describeTransactions(List.of("expiring-app")).description("expiring-app")
                        .get(60, TimeUnit.SECONDS).producerId() != firstProducerId, "a new producer id, as in Kafka");
                producer.beginTransaction();
                sendAll(producer, "again", 2);
                producer.commitTransaction();
            }
            assertEquals(4, readAll("read_committed", 4).size());
        }
    }

    private static List<String> listedIds(Admin admin) throws Exception {
        return admin.listTransactions().all().get(60, TimeUnit.SECONDS).stream()
                .map(org.apache.kafka.clients.admin.TransactionListing::transactionalId).toList();
    }

    @Test
    void anOperatorAbortsATransactionByHand() throws Exception {
        start(1);
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
                KafkaProducer<String, String> producer = producer("hanging-app", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendAll(producer, "hanging", 2);
            assertEquals(0, endOffsetCommitted(), "the open transaction holds the last stable offset");
            var state = admin.describeProducers(List.of(tp)).partitionResult(tp).get(60, TimeUnit.SECONDS)
                    .activeProducers().get(0);
            admin.abortTransaction(new org.apache.kafka.clients.admin.AbortTransactionSpec(tp, state.producerId(),
                    (short) state.producerEpoch(), state.coordinatorEpoch().orElse(-1))).all()
                    .get(60, TimeUnit.SECONDS);
            assertTrue(admin.describeProducers(List.of(tp)).partitionResult(tp).get(60, TimeUnit.SECONDS)
                    .activeProducers().get(0).currentTransactionStartOffset().isEmpty(), "no transaction open");
            TopicPartition other = new TopicPartition(TOPIC, 1);
            try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
                assertEquals(Map.of(tp, 2L, other, 0L), consumer.endOffsets(List.of(tp, other)),
                        "partition 0 is stable past its record and the abort marker; partition 1 is still open");
            }
            // The producer commits later: partition 1's record is committed, partition 0's stays aborted.
            producer.commitTransaction();
            try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
                consumer.assign(List.of(tp, other));
                consumer.seekToBeginning(List.of(tp, other));
                List<String> read = new ArrayList<>();
                long deadline = System.currentTimeMillis() + WAIT_MS;
                while ((consumer.position(tp) < 3 || consumer.position(other) < 2)
                        && System.currentTimeMillis() < deadline) {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> read.add(record.value()));
                }
                assertEquals(List.of("hanging-1"), read);
            }
        }
    }

    private long endOffsetCommitted() {
        try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
            Map<TopicPartition, Long> ends = consumer.endOffsets(List.of(new TopicPartition(TOPIC, 0),
                    new TopicPartition(TOPIC, 1)));
            return ends.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private KafkaProducer<String, String> producer(String transactionalId, Map<String, String> overrides) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.putAll(overrides);
        return new KafkaProducer<>(props);
    }

    private static void sendAll(KafkaProducer<String, String> producer, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(TOPIC, i % 2, null, prefix + "-" + i));
        }
        producer.flush();
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        return new KafkaConsumer<>(props);
    }

    private List<String> readAll(String isolation, int expected) {
        return readAll(isolation, expected, Duration.ofMillis(WAIT_MS));
    }

    /** The values a consumer with {@code isolation} reads from the start, once it has {@code expected} or time is up. */
    private List<String> readAll(String isolation, int expected, Duration wait) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            consumer.assign(List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.currentTimeMillis() + wait.toMillis();
            while (values.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        return values;
    }
}
