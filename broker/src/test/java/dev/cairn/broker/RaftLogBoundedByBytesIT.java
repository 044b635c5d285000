package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.ReplicaRaftState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition's Raft log stays bounded by bytes under large batches ({@code raft.snapshot.interval.bytes}): 40 MiB
 * produced in 160 batches, far below the entry-count trigger, leave a few Raft log segments on disk, not 40 MiB;
 * every record reads back, before and after a restart that restores from those snapshots.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class RaftLogBoundedByBytesIT {
    private static final String TOPIC = "large-batches";
    private static final int RECORD_BYTES = 256 * 1024;
    private static final int RECORDS = 160;
    /** The open Raft segment (8 MB) and one closed segment straddling the purge point, with room to spare. */
    private static final long RAFT_LOG_BYTES_BOUND = 24L * 1024 * 1024;
    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void largeBatchesDoNotGrowTheRaftLogPastTheByteInterval() throws Exception {
        cluster = InProcessCluster.start(1, dir, Map.of(
                "raft.snapshot.interval.bytes", Integer.toString(1024 * 1024),
                "auto.create.topics.enable", "false"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        produce();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (raftLogBytes() >= RAFT_LOG_BYTES_BOUND && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        long raftBytes = raftLogBytes();
        ReplicaRaftState state = cluster.broker(1).replicaRaftState(TOPIC, 0).orElseThrow();
        assertTrue(raftBytes < RAFT_LOG_BYTES_BOUND, "Raft log holds " + raftBytes + " bytes after "
                + (long) RECORDS * RECORD_BYTES + " produced: " + state);
        assertTrue(state.raftLogStartIndex() > 1, "the Raft log was never purged: " + state);
        assertEquals(RECORDS, state.logEndOffset());

        assertEquals(RECORDS, consumeAll());
        cluster.stop(1);
        cluster.restart(1);
        assertEquals(RECORDS, consumeAll(), "after a restart from the snapshots");
    }

    private void produce() throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int id = 0; id < RECORDS; id++) {
                byte[] value = new byte[RECORD_BYTES];
                ByteBuffer.wrap(value).putInt(id);
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, value)));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Reads the partition from 0: every record once, offsets dense, each holding its own id. */
    private int consumeAll() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            int next = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (next < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(next, record.offset(), "offsets must be dense");
                    assertEquals(next, ByteBuffer.wrap(record.value()).getInt(), "record id at offset");
                    next++;
                }
            }
            return next;
        }
    }

    /** Bytes of every Raft log segment file on the broker (the partition's group and the metadata group). */
    private long raftLogBytes() throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return raftLogBytesOnce();
            } catch (java.io.UncheckedIOException vanishedMidWalk) {
                if (attempt == 3) {
                    throw vanishedMidWalk;
                }
            }
        }
    }

    private long raftLogBytesOnce() throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.walk(dir.resolve("broker-1").resolve("raft"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("log_")).toList()) {
                try {
                    total += Files.size(file);
                } catch (java.nio.file.NoSuchFileException purged) {
                    // deleted by a purge while walking
                }
            }
        }
        return total;
    }
}
