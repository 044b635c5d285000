package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.ReplicaRaftState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that was down while its leader snapshotted and purged its Raft log past the follower's position
 * catches up by snapshot installation: its segment files end byte-identical to the leader's (CRC32C per file),
 * the committed offsets made while it was down are on it, and it serves every record once the leader is gone.
 * A follower that lost unflushed segment bytes its Raft log still commits copies them back from the leader.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SnapshotCatchUpIT {
    private static final String TOPIC = "caught-up";
    private static final String GROUP = "snapshot-group";
    private static final int RECORD_BYTES = 4096;
    /** Enough Raft log to close and purge several of Ratis's 8 MB log segments; the loop stops sooner. */
    private static final int RECORDS_WHILE_DOWN_MAX = 60_000;
    private static final long WAIT_SECONDS = 120;

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
    void farBehindFollowerCatchesUpFromTheLeadersSnapshot() throws Exception {
        startWithTopic(Map.of("raft.snapshot.interval.entries", "200",
                "log.segment.bytes", Integer.toString(2 * 1024 * 1024), "group.initial.rebalance.delay.ms", "0"));
        long produced = produce(0, 2_000);
        commit(1_000);
        int leader = leaderOf();
        int follower = leader % 3 + 1;
        long stoppedAt = state(follower).lastAppliedIndex();
        cluster.stop(follower);

        // Keep writing until the leader's Raft log no longer holds the entries after the follower's position.
        while (state(leader).raftLogStartIndex() <= stoppedAt + 1) {
            assertTrue(produced < 2_000 + RECORDS_WHILE_DOWN_MAX, "the leader never purged its Raft log past "
                    + stoppedAt + ": " + state(leader));
            produced += produce(produced, 2_000);
        }
        long committed = produced - 10;
        commit(committed);

        cluster.restart(follower);
        long endOffset = state(leader).logEndOffset();
        awaitTrue(() -> stateNow(follower).logEndOffset() == endOffset, "follower catches up to " + endOffset);
        ReplicaRaftState caughtUp = state(follower);
        assertTrue(caughtUp.snapshotsInstalled() >= 1, "caught up without installing a snapshot: " + caughtUp);
        awaitTrue(() -> cluster.broker(follower).localCommittedOffset(TOPIC, 0, GROUP)
                .equals(OptionalLong.of(committed)), "the offset committed while the follower was down");

        Map<String, String> leaderSegments = segmentChecksums(leader);
        assertTrue(leaderSegments.size() > 3, "expected several segments, got " + leaderSegments.keySet());
        assertEquals(leaderSegments, segmentChecksums(follower), "segment files (CRC32C) differ from the leader's");

        // The installed replica serves: without the old leader, every record comes back once, offsets dense.
        cluster.stop(leader);
        assertEquals(produced, consumeCountingDenseOffsets(produced));
    }

    /**
     * A follower whose machine lost bytes it had not flushed (here: its segment cut short, its recovery point gone,
     * as a power loss leaves them) while its Raft log kept the entries: as it replays them it finds their batches
     * missing, copies the committed batches from the leader, and ends byte-identical to it.
     */
    @Test
    void followerThatLostUnflushedBytesCopiesThemFromTheLeader() throws Exception {
        startWithTopic(Map.of("raft.snapshot.interval.entries", "1000000"));
        long produced = produce(0, 1_500);
        int leader = leaderOf();
        int follower = leader % 3 + 1;
        long endOffset = state(leader).logEndOffset();
        awaitTrue(() -> stateNow(follower).logEndOffset() == endOffset, "follower has every record");
        cluster.stop(follower);

        Path logDir = dir.resolve("broker-" + follower).resolve("logs").resolve(TOPIC + "-0");
        Path segment;
        try (Stream<Path> files = Files.list(logDir)) {
            segment = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().reduce((a, b) -> b)
                    .orElseThrow();
        }
        long size = Files.size(segment);
        try (var channel = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(size / 3 + 7);   // mid-batch: a torn tail, and most committed batches gone
        }
        String base = segment.getFileName().toString().replace(".log", "");
        Files.deleteIfExists(logDir.resolve("recovery-point"));
        Files.deleteIfExists(logDir.resolve(base + ".index"));
        Files.deleteIfExists(logDir.resolve(base + ".timeindex"));

        cluster.restart(follower);
        // New entries reach the follower while it still copies: their batches wait for the gap to close.
        produced += produce(produced, 500);
        long newEnd = state(leader).logEndOffset();
        awaitTrue(() -> stateNow(follower).logEndOffset() == newEnd, "follower copies back and catches up to "
                + newEnd + " (had " + endOffset + ")");
        assertEquals(segmentChecksums(leader), segmentChecksums(follower), "segment files differ from the leader's");
        cluster.stop(leader);
        assertEquals(produced, consumeCountingDenseOffsets(produced));
    }

    /** Three brokers (leaders stay where elected, no topic created by a client) and the topic at RF=3. */
    private void startWithTopic(Map<String, String> settings) throws Exception {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put("auto.leader.rebalance.enable", "false");
        all.put("auto.create.topics.enable", "false");
        cluster = InProcessCluster.start(3, dir, all);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private long produce(long firstId, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(4 * RECORD_BYTES));
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long id = firstId; id < firstId + count; id++) {
                byte[] value = new byte[RECORD_BYTES];
                java.nio.ByteBuffer.wrap(value).putLong(id);
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, value)));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        return count;
    }

    private void commit(long offset) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(GROUP)) {
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(offset)),
                    Duration.ofSeconds(WAIT_SECONDS));
        }
    }

    private long consumeCountingDenseOffsets(long expected) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(null)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long next = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (next < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(next, record.offset(), "offsets must be dense");
                    assertEquals(next, java.nio.ByteBuffer.wrap(record.value()).getLong(), "record id at offset");
                    next++;
                }
            }
            return next;
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(props);
    }

    private int leaderOf() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (System.nanoTime() < deadline) {
                TopicPartitionInfo info = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS).get(TOPIC).partitions().get(0);
                if (info.leader() != null && info.leader().id() > 0) {
                    return info.leader().id();
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new AssertionError("partition 0 of " + TOPIC + " has no leader");
    }

    private ReplicaRaftState state(int nodeId) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            Optional<ReplicaRaftState> state = cluster.broker(nodeId).replicaRaftState(TOPIC, 0);
            if (state.isPresent()) {
                return state.get();
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("broker " + nodeId + " hosts no replica of " + TOPIC + "-0");
    }

    private ReplicaRaftState stateNow(int nodeId) {
        return cluster.broker(nodeId).replicaRaftState(TOPIC, 0).orElse(new ReplicaRaftState(-1, -1, -1, -1, 0));
    }

    /** Every segment file of the partition on one broker, by name, with its size and CRC32C. */
    private Map<String, String> segmentChecksums(int nodeId) throws IOException {
        Path logDir = dir.resolve("broker-" + nodeId).resolve("logs").resolve(TOPIC + "-0");
        Map<String, String> checksums = new TreeMap<>();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                CRC32C crc = new CRC32C();
                try (InputStream in = Files.newInputStream(file)) {
                    byte[] buffer = new byte[64 * 1024];
                    for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                        crc.update(buffer, 0, n);
                    }
                }
                checksums.put(file.getFileName().toString(), Files.size(file) + " bytes, crc32c "
                        + Long.toHexString(crc.getValue()));
            }
        }
        return checksums;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
