package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classic consumer-group protocol end to end with the unmodified kafka-clients 4.4 consumer and Admin:
 * three consumers share six partitions two each; a fourth joins; one closes (LeaveGroup); one is killed with
 * SIGKILL in its own JVM, so it never leaves and the coordinator must expire its session. Every consumer commits
 * after processing each poll, so no record may be lost, and a record may be processed twice only if it was
 * processed by a consumer whose commit of it never succeeded (the uncommitted window).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupsIT {
    private static final String TOPIC = "group-orders";
    private static final String GROUP = "cairn-group";
    private static final int PARTITIONS = 6;
    private static final int RECORDS_PER_PHASE = 600;
    private static final int SESSION_TIMEOUT_MS = 6_000;
    private static final int MAX_POLL_RECORDS = 50;
    private static final long WAIT_MS_MAX = 60_000;
    /** Lines the child consumer prints: a processed record's value, and a successful commit. */
    private static final String PROCESSED = "@@processed ";
    private static final String COMMITTED = "@@committed";
    private static final String COMMIT_FAILED = "@@commit-failed";

    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("num.partitions", Integer.toString(PARTITIONS),
                "group.initial.rebalance.delay.ms", "500"));
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    static Properties consumerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        return props;
    }

    private static void produce(int phase) throws Exception {
        produce(TOPIC, phase);
    }

    private static void produce(String topic, int phase) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS_PER_PHASE; i++) {
                int n = phase * RECORDS_PER_PHASE + i;
                acks.add(producer.send(new ProducerRecord<>(topic, n % PARTITIONS, null, "v" + n)));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(30, TimeUnit.SECONDS);
        }
    }

    private static void await(String what, BooleanSupplier condition, Supplier<String> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; state: " + state.get());
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static ConsumerGroupDescription describe(Admin admin) {
        try {
            return admin.describeConsumerGroups(List.of(GROUP)).all().get(30, TimeUnit.SECONDS).get(GROUP);
        } catch (Exception e) {
            throw new AssertionError("describeConsumerGroups failed", e);
        }
    }

    /** Whether the group is Stable with {@code members} members that together own all partitions once. */
    private static boolean stableWith(Admin admin, int members) {
        ConsumerGroupDescription group = describe(admin);
        if (group.groupState() != GroupState.STABLE || group.members().size() != members) {
            return false;
        }
        List<TopicPartition> owned = new ArrayList<>();
        for (MemberDescription member : group.members()) {
            owned.addAll(member.assignment().topicPartitions());
        }
        return owned.size() == PARTITIONS && new HashSet<>(owned).size() == PARTITIONS;
    }

    @Test
    void consumersSharePartitionsThroughJoinLeaveAndCrashWithoutLosingRecords() throws Exception {
        produce(0);
        Map<String, Integer> processedCounts = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        List<Worker> workers = new ArrayList<>();
        ChildConsumer child = null;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()))) {
            for (int i = 0; i < 3; i++) {
                workers.add(Worker.start("worker-" + i, broker.bootstrap(), processedCounts, uncommitted));
            }
            await("three consumers with two partitions each",
                    () -> workers.stream().allMatch(w -> w.assignment().size() == 2) && stableWith(admin, 3),
                    () -> workers.toString());
            Collection<ConsumerGroupListing> listed = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS);
            assertTrue(listed.stream().anyMatch(g -> g.groupId().equals(GROUP)), "listed: " + listed);
            ConsumerGroupDescription described = describe(admin);
            assertEquals("range", described.partitionAssignor());
            for (MemberDescription member : described.members()) {
                assertEquals(2, member.assignment().topicPartitions().size(), member.toString());
                assertTrue(member.clientId().startsWith("consumer-" + GROUP), member.clientId());
                assertTrue(member.host().contains("127.0.0.1"), member.host());
            }

            child = ChildConsumer.start(broker.bootstrap(), processedCounts, uncommitted);
            ChildConsumer fourth = child;
            await("a fourth consumer in the group", () -> stableWith(admin, 4) && fourth.hasAssignment(),
                    () -> describe(admin).toString());
            produce(1);

            workers.get(0).close();
            await("the closed consumer's partitions moved to the others", () -> stableWith(admin, 3),
                    () -> describe(admin).toString());

            await("the fourth consumer processed records", () -> fourth.processedCount() > 0,
                    () -> "child processed " + fourth.processedCount());
            child.kill();
            long killedAtNs = System.nanoTime();
            await("the killed consumer's session expired", () -> stableWith(admin, 2),
                    () -> describe(admin).toString());
            long expiryMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAtNs);
            assertTrue(expiryMs >= SESSION_TIMEOUT_MS - 1_000, "expired after " + expiryMs + " ms");
            produce(2);

            int total = 3 * RECORDS_PER_PHASE;
            await("every record processed", () -> processedCounts.size() == total,
                    () -> processedCounts.size() + " of " + total);
            int duplicates = 0;
            for (Map.Entry<String, Integer> entry : processedCounts.entrySet()) {
                duplicates += entry.getValue() - 1;
                if (entry.getValue() > 1) {
                    assertTrue(uncommitted.contains(entry.getKey()), entry.getKey() + " was processed "
                            + entry.getValue() + " times though its first processing was committed");
                }
            }
            System.out.println("GroupsIT: " + total + " records, " + duplicates + " processed again, "
                    + uncommitted.size() + " in uncommitted windows, session expiry noticed after " + expiryMs
                    + " ms");
            await("all offsets committed", () -> committedTotal(admin) == total, () -> "committed "
                    + committedTotal(admin));
        } finally {
            for (Worker worker : workers) {
                worker.close();
            }
            if (child != null) {
                child.kill();
            }
        }
    }

    /**
     * Static membership (KIP-345, JoinGroup v5): a consumer with a {@code group.instance.id} that closes (a static
     * member does not leave) and restarts within its session timeout gets its partitions back in the same
     * generation, and the other member is not rebalanced.
     */
    @Test
    void aRestartedStaticMemberGetsItsPartitionsBackWithoutARebalance() throws Exception {
        String group = "static-group";
        String topic = "static-orders";
        produce(topic, 0);
        Properties a = consumerProperties(broker.bootstrap());
        a.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        a.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-a");
        Properties b = consumerProperties(broker.bootstrap());
        b.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        b.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-b");
        try (KafkaConsumer<String, String> second = new KafkaConsumer<>(b)) {
            Set<TopicPartition> assignedBefore;
            int generationBefore;
            second.subscribe(List.of(topic));
            try (KafkaConsumer<String, String> first = new KafkaConsumer<>(a)) {
                first.subscribe(List.of(topic));
                pollUntil(List.of(first, second), () -> first.assignment().size() == PARTITIONS / 2
                        && second.assignment().size() == PARTITIONS / 2);
                assignedBefore = Set.copyOf(first.assignment());
                generationBefore = first.groupMetadata().generationId();
                assertEquals(generationBefore, second.groupMetadata().generationId());
            }
            try (KafkaConsumer<String, String> restarted = new KafkaConsumer<>(a)) {
                restarted.subscribe(List.of(topic));
                pollUntil(List.of(restarted, second), () -> restarted.assignment().size() == PARTITIONS / 2);
                assertEquals(assignedBefore, restarted.assignment(), "the same partitions come back");
                assertEquals(generationBefore, restarted.groupMetadata().generationId(), "no new generation");
                assertEquals(generationBefore, second.groupMetadata().generationId(), "the other member kept going");
            }
        }
    }

    /** Polls every consumer in turn (each poll drives its group membership) until the condition holds. */
    private static void pollUntil(List<KafkaConsumer<String, String>> consumers, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out polling the group");
            for (KafkaConsumer<String, String> consumer : consumers) {
                consumer.poll(Duration.ofMillis(100));
            }
        }
    }

    private static long committedTotal(Admin admin) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            return offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
        } catch (Exception e) {
            throw new AssertionError("listConsumerGroupOffsets failed", e);
        }
    }

    /** Processes one polled batch: counts each value, then commits; a failed commit leaves the batch uncommitted. */
    private static void processed(Map<String, Integer> counts, Collection<String> values) {
        for (String value : values) {
            counts.merge(value, 1, Integer::sum);
        }
    }

    /** An in-process consumer on its own thread: poll, process, commitSync, until closed. */
    private static final class Worker implements Runnable {
        private final String name;
        private final KafkaConsumer<String, String> consumer;
        private final Map<String, Integer> counts;
        private final Set<String> uncommitted;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile Set<TopicPartition> assignment = Set.of();
        private volatile Throwable failure;

        private Worker(String name, String bootstrap, Map<String, Integer> counts, Set<String> uncommitted) {
            this.name = name;
            this.consumer = new KafkaConsumer<>(consumerProperties(bootstrap));
            this.counts = counts;
            this.uncommitted = uncommitted;
            this.thread = new Thread(this, name);
        }

        static Worker start(String name, String bootstrap, Map<String, Integer> counts, Set<String> uncommitted) {
            Worker worker = new Worker(name, bootstrap, counts, uncommitted);
            worker.thread.start();
            return worker;
        }

        @Override
        public void run() {
            try {
                consumer.subscribe(List.of(TOPIC));
                while (running) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    assignment = Set.copyOf(consumer.assignment());
                    List<String> values = new ArrayList<>();
                    for (ConsumerRecord<String, String> record : records) {
                        values.add(record.value());
                    }
                    processed(counts, values);
                    try {
                        consumer.commitSync(Duration.ofSeconds(30));
                    } catch (KafkaException e) {
                        // A rebalance took the partitions first: these records may be processed again.
                        uncommitted.addAll(values);
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                // close() sends LeaveGroup, so the coordinator rebalances at once.
                consumer.close(Duration.ofSeconds(30));
            }
        }

        Set<TopicPartition> assignment() {
            return assignment;
        }

        void close() throws InterruptedException {
            running = false;
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(thread.isAlive(), name + " did not stop");
            if (failure != null) {
                throw new AssertionError(name + " failed", failure);
            }
        }

        @Override
        public String toString() {
            return name + assignment;
        }
    }

    /**
     * A consumer in its own JVM, so SIGKILL can take it down without a LeaveGroup: the coordinator only learns of
     * it through its session timing out. It reports each processed value and each successful commit on stdout.
     */
    static final class ChildConsumer {
        private final Process process;
        private final Thread reader;
        private volatile int processedCount;
        private volatile boolean assigned;

        private ChildConsumer(Process process, Map<String, Integer> counts, Set<String> uncommitted) {
            this.process = process;
            this.reader = new Thread(() -> read(counts, uncommitted), "child-consumer-reader");
            this.reader.setDaemon(true);
            this.reader.start();
        }

        static ChildConsumer start(String bootstrap, Map<String, Integer> counts, Set<String> uncommitted)
                throws IOException {
            List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                    "-cp", System.getProperty("java.class.path"), ChildConsumer.class.getName(), bootstrap);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new ChildConsumer(process, counts, uncommitted);
        }

        private void read(Map<String, Integer> counts, Set<String> uncommitted) {
            List<String> sinceCommit = new ArrayList<>();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith(PROCESSED)) {
                        String value = line.substring(PROCESSED.length());
                        sinceCommit.add(value);
                        processed(counts, List.of(value));
                        processedCount++;
                    } else if (line.startsWith(COMMIT_FAILED)) {
                        uncommitted.addAll(sinceCommit);
                        sinceCommit.clear();
                    } else if (line.startsWith(COMMITTED)) {
                        assigned = assigned || line.length() > COMMITTED.length();
                        sinceCommit.clear();
                    }
                }
            } catch (IOException e) {
                // The process was killed mid-line; what it processed since its last commit is uncommitted.
            }
            uncommitted.addAll(sinceCommit);
        }

        boolean hasAssignment() {
            return assigned;
        }

        int processedCount() {
            return processedCount;
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }

        /** The child JVM: poll, print, commit, print, forever (until killed). */
        public static void main(String[] args) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProperties(args[0]))) {
                consumer.subscribe(List.of(TOPIC));
                while (true) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    StringBuilder out = new StringBuilder();
                    for (ConsumerRecord<String, String> record : records) {
                        out.append(PROCESSED).append(record.value()).append('\n');
                    }
                    System.out.print(out);
                    System.out.flush();
                    try {
                        consumer.commitSync(Duration.ofSeconds(30));
                        Map<Integer, Integer> owned = new HashMap<>();
                        consumer.assignment().forEach(tp -> owned.put(tp.partition(), 1));
                        System.out.println(COMMITTED + (owned.isEmpty() ? "" : " " + owned.keySet()));
                    } catch (KafkaException e) {
                        // Left uncommitted; the parent counts these records as possibly redelivered.
                        System.out.println(COMMIT_FAILED + " " + e);
                    }
                    System.out.flush();
                }
            }
        }
    }
}
