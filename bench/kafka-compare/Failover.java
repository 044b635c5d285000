import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kills a broker under load and checks what the acknowledged records became, with Kafka's own clients, the same for
 * Cairn and Kafka. Used by bench/cluster-scale.sh. A producer (default settings: idempotent, acks=all) sends 100-byte
 * values, each carrying a unique sequence number, round-robin over every partition, up to 10,000 in flight; the
 * callback records each acknowledged sequence number. After SECONDS_BEFORE it notes the partitions VICTIM_NODE_ID
 * leads, runs {@code kill -9 VICTIM_PID} (a broker the calling script started), and polls describeTopics every 150 ms
 * until each of those partitions has a leader other than the victim (seconds since the kill: new_leaders_s). It
 * produces SECONDS_AFTER more seconds, closes the producer, then reads every partition with a fresh consumer from
 * its end offset before the producer started (the topic may hold other records) to its end offset after the producer
 * closed: lost counts acknowledged values not read, duplicates values read more than once.
 * Records that failed (retriable errors while leaders moved) are not counted as lost; failed= says how many.
 *
 *   java -cp "bench-work/kafka-libs/*" bench/kafka-compare/Failover.java BOOTSTRAP TOPIC PARTITIONS VICTIM_NODE_ID \
 *       VICTIM_PID SECONDS_BEFORE SECONDS_AFTER
 *
 * VICTIM_NODE_ID and VICTIM_PID may be comma-separated lists of the same length (node ids and their PIDs): the victim
 * is then the one leading the most of TOPIC's partitions just before the kill (the first listed on a tie).
 *
 * Prints one line: failover victim=3 victim_led=333 new_leaders_s=4.2 acked=123456 lost=0 duplicates=0 failed=12 ...
 * (leaders_before: partitions each node led just before the kill, by node id; -1 for none).
 * new_leaders_s=timeout when the victim's partitions still lacked a leader after 120 s.
 */
public final class Failover {
    private static final int IN_FLIGHT_MAX = 10_000;
    private static final int VALUE_BYTES = 100;
    private static final long LEADERS_WAIT_MS_MAX = 120_000;
    private static final long DESCRIBE_INTERVAL_MS = 150;
    private static final long READ_WAIT_MS_MAX = 300_000;
    private static final AtomicBoolean STOPPING = new AtomicBoolean();

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        List<Integer> candidates = Arrays.stream(args[3].split(",")).map(Integer::valueOf).toList();
        List<String> candidatePids = List.of(args[4].split(","));
        if (candidates.size() != candidatePids.size()) {
            throw new IllegalArgumentException("VICTIM_NODE_ID and VICTIM_PID list different numbers of brokers");
        }
        long beforeMs = Long.parseLong(args[5]) * 1000;
        long afterMs = Long.parseLong(args[6]) * 1000;

        BitSet acked = new BitSet();
        Map<String, Long> failures = new TreeMap<>();
        Semaphore inFlight = new Semaphore(IN_FLIGHT_MAX);
        AtomicLong sent = new AtomicLong();
        Properties producerProps = new Properties();
        producerProps.put("bootstrap.servers", bootstrap);
        producerProps.put("key.serializer", ByteArraySerializer.class.getName());
        producerProps.put("value.serializer", ByteArraySerializer.class.getName());
        Properties consumerProps = new Properties();
        consumerProps.put("bootstrap.servers", bootstrap);
        consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
        consumerProps.put("enable.auto.commit", "false");
        List<TopicPartition> assignment = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assignment.add(new TopicPartition(topic, p));
        }
        Map<TopicPartition, Long> starts;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            starts = consumer.endOffsets(assignment, Duration.ofMinutes(1));
        }
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps);
        Thread sender = new Thread(() -> {
            try {
                for (long seq = 0; !STOPPING.get(); ) {
                    if (!inFlight.tryAcquire(200, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    byte[] value = ByteBuffer.allocate(VALUE_BYTES).putLong(seq).array();
                    long s = seq;
                    producer.send(new ProducerRecord<>(topic, (int) (seq % partitions), null, value), (md, error) -> {
                        synchronized (acked) {
                            if (error == null) {
                                acked.set((int) s);
                            } else {
                                failures.merge(error.getClass().getSimpleName(), 1L, Long::sum);
                            }
                        }
                        inFlight.release();
                    });
                    sent.set(++seq);
                }
            } catch (Exception e) {
                System.err.println("failover: the producer stopped sending: " + e);
            }
        }, "sender");
        sender.setDaemon(true);
        sender.start();

        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap);
        adminProps.put("request.timeout.ms", "5000");
        adminProps.put("default.api.timeout.ms", "10000");
        String leadersSeconds;
        Set<Integer> led = new TreeSet<>();
        Map<Integer, Integer> leadersBefore = new TreeMap<>();
        long afterKill;
        int victim;
        try (Admin admin = Admin.create(adminProps)) {
            Thread.sleep(beforeMs);
            List<TopicPartitionInfo> before = describe(admin, topic).partitions();
            for (TopicPartitionInfo p : before) {
                leadersBefore.merge(p.leader() == null ? -1 : p.leader().id(), 1, Integer::sum);
            }
            int chosen = 0;
            for (int i = 1; i < candidates.size(); i++) {
                if (leadersBefore.getOrDefault(candidates.get(i), 0) > leadersBefore.getOrDefault(
                        candidates.get(chosen), 0)) {
                    chosen = i;
                }
            }
            victim = candidates.get(chosen);
            String victimPid = candidatePids.get(chosen);
            for (TopicPartitionInfo p : before) {
                if (p.leader() != null && p.leader().id() == victim) {
                    led.add(p.partition());
                }
            }
            long killed = System.nanoTime();
            int exit = new ProcessBuilder("kill", "-9", victimPid).inheritIO().start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill -9 " + victimPid + " exited with " + exit);
            }
            System.err.printf("failover: killed node %d (pid %s), leader of %d partitions, after %d records sent%n",
                    victim, victimPid, led.size(), sent.get());
            leadersSeconds = "timeout";
            int orphans = led.size();
            while (System.nanoTime() - killed < TimeUnit.MILLISECONDS.toNanos(LEADERS_WAIT_MS_MAX)) {
                try {
                    orphans = 0;
                    for (TopicPartitionInfo p : describe(admin, topic).partitions()) {
                        if (led.contains(p.partition())
                                && (p.leader() == null || p.leader().id() < 0 || p.leader().id() == victim)) {
                            orphans++;
                        }
                    }
                    if (orphans == 0) {
                        leadersSeconds = String.format("%.1f", (System.nanoTime() - killed) / 1e9);
                        break;
                    }
                } catch (Exception e) {
                    System.err.println("failover: describeTopics failed (retrying): " + e);
                }
                Thread.sleep(DESCRIBE_INTERVAL_MS);
            }
            if (orphans > 0) {
                System.err.printf("failover: %d of the victim's %d partitions had no other leader after %d s%n",
                        orphans, led.size(), LEADERS_WAIT_MS_MAX / 1000);
            }
            afterKill = System.nanoTime() - killed;
        }
        Thread.sleep(Math.max(0, afterMs - TimeUnit.NANOSECONDS.toMillis(afterKill)));
        STOPPING.set(true);
        sender.join(TimeUnit.MINUTES.toMillis(2));
        producer.flush();
        producer.close(Duration.ofMinutes(2));

        long ackedCount;
        synchronized (acked) {
            ackedCount = acked.cardinality();
        }
        BitSet seen = new BitSet();
        long duplicates = 0;
        long read = 0;
        boolean complete;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(assignment,
                    Duration.ofMinutes(1)));
            consumer.assign(assignment);
            starts.forEach(consumer::seek);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_WAIT_MS_MAX);
            while (!ends.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    int seq = (int) ByteBuffer.wrap(r.value()).getLong();
                    read++;
                    if (seen.get(seq)) {
                        duplicates++;
                    }
                    seen.set(seq);
                }
                ends.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
            }
            complete = ends.isEmpty();
            if (!complete) {
                System.err.printf("failover: %d partitions not read to their end offset after %d s%n", ends.size(),
                        READ_WAIT_MS_MAX / 1000);
            }
        }
        BitSet lost = (BitSet) acked.clone();
        lost.andNot(seen);
        System.out.printf("failover victim=%d victim_led=%d new_leaders_s=%s acked=%d lost=%d duplicates=%d"
                        + " failed=%d read=%d sent=%d read_complete=%b leaders_before=%s failures=%s%n", victim,
                led.size(), leadersSeconds, ackedCount, lost.cardinality(), duplicates,
                failures.values().stream().mapToLong(Long::longValue).sum(), read, sent.get(), complete,
                leadersBefore.toString().replace(" ", ""), failures);
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
    }
}
