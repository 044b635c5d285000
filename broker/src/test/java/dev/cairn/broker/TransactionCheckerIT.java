package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20, acceptance 3 (the kill half): a transaction checker in the style of Jepsen's Kafka workload. Producers
 * run transactions over several partitions of a topic at RF=3, each committed or aborted, while broker processes are
 * killed with SIGKILL and restarted in turn. Every transaction's outcome as its producer learnt it is recorded
 * (committed, aborted, or unknown when the call failed). A final read with read_committed then counts the anomalies:
 * an aborted read (a record of a transaction whose abort was acknowledged), a torn transaction (one seen in part),
 * a lost write (a transaction whose commit was acknowledged, missing), a duplicate (a record read twice), and
 * offsets out of order. Every count must be zero. {@code -Dtxn.checker.seconds} sets the length of the faulty phase
 * (default 30); network cuts are not part of it yet.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class TransactionCheckerIT {
    private static final String TOPIC = "txn-check";
    private static final int PARTITIONS = 6;
    private static final int PRODUCERS = 4;
    private static final long WAIT_SECONDS = 180;
    private static final long FAULT_SECONDS = Long.getLong("txn.checker.seconds", 30);

    @TempDir
    Path dir;
    private final List<BrokerProcess> brokers = new ArrayList<>();
    private final int[] kafkaPorts = new int[3];
    /** Each transaction's records ("producer:txn:k/n") and its outcome as the producer learnt it. */
    private final Map<String, Integer> sizes = new ConcurrentHashMap<>();
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (BrokerProcess broker : brokers) {
            broker.close();
        }
    }

    private String bootstrap() {
        return "127.0.0.1:" + kafkaPorts[0] + ",127.0.0.1:" + kafkaPorts[1] + ",127.0.0.1:" + kafkaPorts[2];
    }

    @Test
    void noAnomaliesWhileBrokersAreKilled() throws Exception {
        startBrokers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            Thread thread = new Thread(() -> runTransactions(id, running), "txn-checker-" + p);
            thread.start();
            producers.add(thread);
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(FAULT_SECONDS);
        int victim = 0;
        while (System.nanoTime() < end) {
            TimeUnit.SECONDS.sleep(5);
            brokers.get(victim).kill();
            TimeUnit.SECONDS.sleep(3);
            brokers.get(victim).start();
            victim = (victim + 1) % brokers.size();
        }
        running.set(false);
        for (Thread thread : producers) {
            thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
        Map<String, Integer> anomalies = check(readAll("read_committed"));
        // The checker sees what it looks for: read uncommitted, the aborted transactions' records are there.
        int abortedSeenUncommitted = check(readAll("read_uncommitted")).get("aborted read");
        long committed = outcomes.values().stream().filter("committed"::equals).count();
        long aborted = outcomes.values().stream().filter("aborted"::equals).count();
        System.out.println("TransactionCheckerIT: " + outcomes.size() + " transactions (" + committed
                + " committed, " + aborted + " aborted, " + (outcomes.size() - committed - aborted)
                + " unknown) over " + FAULT_SECONDS + " s of broker kills; anomalies " + anomalies
                + "; aborted transactions seen by read_uncommitted: " + abortedSeenUncommitted);
        assertTrue(committed > 0, "some transactions committed");
        assertTrue(aborted == 0 || abortedSeenUncommitted > 0, "read_uncommitted shows aborted records");
        assertEquals(Map.of("aborted read", 0, "torn transaction", 0, "lost write", 0, "duplicate", 0,
                "offset order", 0), anomalies);
    }

    /** One producer's loop: transactions of 2-5 records over random partitions, about one in four aborted. */
    private void runTransactions(int id, AtomicBoolean running) {
        SplittableRandom random = new SplittableRandom(id);
        int txn = 0;
        while (running.get()) {
            try (KafkaProducer<String, String> producer = producer("checker-" + id)) {
                producer.initTransactions();
                while (running.get()) {
                    String name = id + ":" + (txn++);
                    int size = 2 + random.nextInt(4);
                    boolean commit = random.nextInt(4) != 0;
                    sizes.put(name, size);
                    outcomes.put(name, "unknown");
                    try {
                        producer.beginTransaction();
                        for (int k = 0; k < size; k++) {
                            producer.send(new ProducerRecord<>(TOPIC, random.nextInt(PARTITIONS), null,
                                    name + ":" + k + "/" + size));
                        }
                        // Sent before it ends, so an abort has records in the log to hide (abortTransaction drops
                        // what is still buffered, which would leave read_committed nothing to prove).
                        producer.flush();
                        if (commit) {
                            producer.commitTransaction();
                            outcomes.put(name, "committed");
                        } else {
                            producer.abortTransaction();
                            outcomes.put(name, "aborted");
                        }
                    } catch (KafkaException e) {
                        // The outcome stays unknown; a fatal error (fencing, a timed-out commit) needs a new session.
                        producer.abortTransaction();
                        outcomes.put(name, "aborted");
                    }
                }
            } catch (KafkaException e) {
                // The producer is unusable (fenced, or a fatal error while aborting): a new session takes over.
            }
        }
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        return new KafkaProducer<>(props);
    }

    /** Every record {@code isolation} reads, partition by partition in offset order, once no transaction is open. */
    private List<ConsumerRecord<String, String>> readAll(String isolation) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(TOPIC, p));
        }
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            // Open transactions of dead sessions are aborted by their timeout: wait until the stable end is the end.
            Map<TopicPartition, Long> ends = awaitStableEnds(consumer, partitions);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (System.nanoTime() < deadline && partitions.stream()
                    .anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private Map<TopicPartition, Long> awaitStableEnds(KafkaConsumer<String, String> consumer,
            List<TopicPartition> partitions) throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> uncommitted = new KafkaConsumer<>(props)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (System.nanoTime() < deadline) {
                Map<TopicPartition, Long> stable = consumer.endOffsets(partitions, Duration.ofSeconds(30));
                if (stable.equals(uncommitted.endOffsets(partitions, Duration.ofSeconds(30)))) {
                    return stable;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
        throw new AssertionError("transactions were still open " + WAIT_SECONDS + " s after the producers stopped");
    }

    private Map<String, Integer> check(List<ConsumerRecord<String, String>> records) {
        Map<String, Integer> anomalies = new java.util.TreeMap<>(Map.of("aborted read", 0, "torn transaction", 0,
                "lost write", 0, "duplicate", 0, "offset order", 0));
        Set<String> seen = new HashSet<>();
        Map<String, Integer> perTransaction = new HashMap<>();
        Map<Integer, Long> lastOffset = new HashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            if (!seen.add(record.value())) {
                anomalies.merge("duplicate", 1, Integer::sum);
            }
            if (lastOffset.getOrDefault(record.partition(), -1L) >= record.offset()) {
                anomalies.merge("offset order", 1, Integer::sum);
            }
            lastOffset.put(record.partition(), record.offset());
            String name = record.value().substring(0, record.value().lastIndexOf(':'));
            perTransaction.merge(name, 1, Integer::sum);
        }
        for (Map.Entry<String, Integer> txn : perTransaction.entrySet()) {
            if ("aborted".equals(outcomes.get(txn.getKey()))) {
                anomalies.merge("aborted read", 1, Integer::sum);
            }
            if (!txn.getValue().equals(sizes.get(txn.getKey()))) {
                anomalies.merge("torn transaction", 1, Integer::sum);
            }
        }
        outcomes.forEach((name, outcome) -> {
            if ("committed".equals(outcome) && !perTransaction.containsKey(name)) {
                anomalies.merge("lost write", 1, Integer::sum);
            }
        });
        return anomalies;
    }

    private void startBrokers() throws Exception {
        int[] raftPorts = new int[3];
        for (int i = 0; i < 3; i++) {
            kafkaPorts[i] = BrokerFixture.freePort();
            raftPorts[i] = BrokerFixture.freePort();
        }
        String voters = "1@127.0.0.1:" + raftPorts[0] + ",2@127.0.0.1:" + raftPorts[1] + ",3@127.0.0.1:" + raftPorts[2];
        for (int i = 0; i < 3; i++) {
            Map<String, String> settings = new HashMap<>();
            settings.put("node.id", Integer.toString(i + 1));
            settings.put("listeners", "127.0.0.1:" + kafkaPorts[i]);
            settings.put("raft.listener", "127.0.0.1:" + raftPorts[i]);
            settings.put("raft.voters", voters);
            settings.put("log.dirs", dir.resolve("broker-" + (i + 1)).toString());
            settings.put("default.replication.factor", "3");
            brokers.add(new BrokerProcess(settings, dir.resolve("broker-" + (i + 1) + ".log")));
        }
        for (BrokerProcess broker : brokers) {
            broker.launch();
        }
        for (BrokerProcess broker : brokers) {
            broker.awaitStarted();
        }
    }
}
