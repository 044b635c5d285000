package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes on loopback; a 6-partition topic with replication factor 3; the Java client's default
 * (idempotent, acks=all) producer sends 200k records while the test kill -9s the leader of a partition,
 * restarts it, then kill -9s another broker. Every acknowledged record is consumed exactly once, and offsets
 * are dense per partition.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClusterCrashIT {
    private static final String TOPIC = "crash-cluster";
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 200_000;
    /** Lines of each broker's log quoted when a record is missing, and characters quoted of each. */
    private static final int DIGEST_LINES = 25;
    private static final int DIGEST_LINE_CHARS = 300;

    @TempDir
    Path dir;
    private final List<BrokerProcess> brokers = new ArrayList<>();
    private final int[] kafkaPorts = new int[3];

    @AfterEach
    void stop() throws InterruptedException {
        for (BrokerProcess broker : brokers) {
            broker.close();
        }
    }

    private String bootstrap() {
        return "127.0.0.1:" + kafkaPorts[0] + ",127.0.0.1:" + kafkaPorts[1] + ",127.0.0.1:" + kafkaPorts[2];
    }

    private Properties consumerProps() {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap());
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return props;
    }

    @Test
    void acknowledgedRecordsSurviveLeaderKillsAndRestarts() throws Exception {
        int[] raftPorts = new int[3];
        for (int i = 0; i < 3; i++) {
            kafkaPorts[i] = BrokerFixture.freePort();
            raftPorts[i] = BrokerFixture.freePort();
        }
        String voters = "1@127.0.0.1:" + raftPorts[0] + ",2@127.0.0.1:" + raftPorts[1] + ",3@127.0.0.1:" + raftPorts[2];
        Map<String, String> extra = extraSettings();
        for (int i = 0; i < 3; i++) {
            Map<String, String> settings = new HashMap<>();
            settings.put("node.id", Integer.toString(i + 1));
            settings.put("listeners", "127.0.0.1:" + kafkaPorts[i]);
            settings.put("raft.listener", "127.0.0.1:" + raftPorts[i]);
            settings.put("raft.voters", voters);
            settings.put("log.dirs", dir.resolve("broker-" + (i + 1)).toString());
            settings.put("num.partitions", Integer.toString(PARTITIONS));
            settings.put("default.replication.factor", "3");
            settings.putAll(extra);
            brokers.add(new BrokerProcess(settings, dir.resolve("broker-" + (i + 1) + ".log")));
        }
        for (BrokerProcess broker : brokers) {
            broker.launch();
        }
        for (BrokerProcess broker : brokers) {
            broker.awaitStarted();
        }

        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producerThread = new Thread(() -> produce(acknowledged, producerFailure), "producer");
        producerThread.start();

        waitFor(() -> acknowledged.size() >= 30_000, 180, "30k acknowledged");
        int firstVictim = leaderOfPartition(0);
        brokers.get(firstVictim - 1).kill();
        waitFor(() -> acknowledged.size() >= 80_000, 180, "80k acknowledged with broker " + firstVictim + " dead");
        brokers.get(firstVictim - 1).start();
        waitFor(() -> acknowledged.size() >= 130_000, 180, "130k acknowledged after the restart");
        int secondVictim = firstVictim % 3 + 1;
        brokers.get(secondVictim - 1).kill();
        producerThread.join(TimeUnit.SECONDS.toMillis(300));
        assertEquals(null, producerFailure.get(), "the producer saw no fatal error");
        assertEquals(RECORDS, acknowledged.size(), "every record was eventually acknowledged");

        StringBuilder readout = new StringBuilder();
        Map<Long, Integer> seen = consumeAll(RECORDS, readout);
        for (long id : acknowledged) {
            if (seen.getOrDefault(id, 0) != 1) {
                int partition = (int) (id % PARTITIONS);
                fail("acknowledged record " + id + " (partition " + partition + ") consumed " + seen.getOrDefault(id, 0)
                        + " times rather than once; leader of partition 0 (killed, restarted) " + firstVictim
                        + ", then killed " + secondVictim + "; " + readout + "\n" + logDigest(partition));
            }
        }
        assertEquals(RECORDS, seen.size());
    }

    /** Settings every broker gets on top of the test's (a subclass runs the same crashes with Raft over TLS). */
    Map<String, String> extraSettings() throws Exception {
        return Map.of();
    }

    private void produce(Set<Long> acknowledged, AtomicReference<Throwable> failure) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap());
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long id = 0; id < RECORDS; id++) {
                long recordId = id;
                producer.send(new ProducerRecord<>(TOPIC, (int) (id % PARTITIONS), null,
                        ByteBuffer.allocate(100).putLong(id).array()), (metadata, error) -> {
                            if (error == null) {
                                acknowledged.add(recordId);
                            } else {
                                failure.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** The partition's leader as Metadata names it, waiting up to 30 s while it names none (a leader moving). */
    private int leaderOfPartition(int partition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps())) {
            while (System.nanoTime() < deadline) {
                for (PartitionInfo info : consumer.partitionsFor(TOPIC, Duration.ofSeconds(30))) {
                    if (info.partition() == partition && info.leader() != null) {
                        return info.leader().id();
                    }
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
        throw new AssertionError("partition " + partition + " has no leader within 30 s");
    }

    /** Reads every partition from offset 0; {@code readout} gets what was read of each and where its log ends. */
    private Map<Long, Integer> consumeAll(int expected, StringBuilder readout) {
        Map<Long, Integer> seen = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            partitions.forEach(tp -> consumer.seek(tp, 0));
            long[] nextOffset = new long[PARTITIONS];
            int received = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (received < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(nextOffset[record.partition()]++, record.offset(), "dense offsets");
                    seen.merge(ByteBuffer.wrap(record.value()).getLong(), 1, Integer::sum);
                    received++;
                }
            }
            for (TopicPartition tp : partitions) {
                readout.append(tp).append(": read up to ").append(nextOffset[tp.partition()]).append("; ");
            }
            try {
                readout.append("log ends ").append(consumer.endOffsets(partitions, Duration.ofSeconds(10)));
            } catch (RuntimeException e) {
                readout.append("log ends not known: ").append(e);
            }
        }
        return seen;
    }

    /**
     * What the brokers logged about {@code partition}, and their errors: the last {@link #DIGEST_LINES} such lines of
     * each, so that a failure in CI, where only the test's output is kept, says what the brokers saw.
     */
    private String logDigest(int partition) throws IOException {
        String name = TOPIC + "-" + partition;
        StringBuilder digest = new StringBuilder();
        for (int i = 0; i < brokers.size(); i++) {
            List<String> lines = brokers.get(i).log().lines()
                    .filter(line -> line.contains(name) || line.contains(" ERROR "))
                    .map(line -> line.length() > DIGEST_LINE_CHARS ? line.substring(0, DIGEST_LINE_CHARS) : line)
                    .toList();
            digest.append("broker ").append(i + 1).append(" (").append(lines.size()).append(" lines about ")
                    .append(name).append(" or errors, the last ones):\n");
            lines.subList(Math.max(0, lines.size() - DIGEST_LINES), lines.size())
                    .forEach(line -> digest.append("  ").append(line).append('\n'));
        }
        return digest.toString();
    }

    private static void waitFor(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }
}
