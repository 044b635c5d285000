package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.InProcessCluster;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers, replication factor 3: the leader of a partition stops while Cairn's producer is sending to it.
 * The producer must find the new leader through a metadata refresh and deliver every record exactly once, in
 * order, and the consumer must follow the leader too (kafka-protocol.md A.4: NOT_LEADER_OR_FOLLOWER and network
 * errors are retried after a metadata refresh).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LeaderChangeIT {
    private static final String TOPIC = "leader-change";
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 20_000;
    /** The longest the test polls for the records. */
    private static final long READ_TIMEOUT_MS = 120_000;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void startCluster() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("num.partitions", Integer.toString(PARTITIONS),
                "default.replication.factor", "3"));
    }

    private String bootstrap() {
        return cluster.bootstrap();
    }

    @Test
    void producerAndConsumerFollowANewLeader() throws Exception {
        startCluster();
        String bootstrap = bootstrap();
        int leaderBefore;
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(bootstrap).build())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, 3)));
            leaderBefore = admin.describeTopics(List.of(TOPIC)).get(TOPIC).partitions().get(0).leader();
        }
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder().bootstrapServers(bootstrap)
                .lingerMs(1).build())) {
            for (int i = 0; i < RECORDS; i++) {
                futures.add(producer.send(new ProducerRecord(TOPIC, i % PARTITIONS, null, null,
                        ByteBuffer.allocate(Integer.BYTES).putInt(i).array(), List.of())));
                if (i == RECORDS / 2) {
                    // Stop partition 0's leader while batches to it are queued and in flight.
                    cluster.stop(leaderBefore);
                }
            }
            producer.flush(Duration.ofSeconds(120));
        }
        long[] ackedOffset = new long[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            ackedOffset[i] = futures.get(i).get(1, TimeUnit.SECONDS).offset();
        }
        String survivors = bootstrap();
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(survivors).build())) {
            int leaderAfter = admin.describeTopics(List.of(TOPIC)).get(TOPIC).partitions().get(0).leader();
            assertNotEquals(leaderBefore, leaderAfter, "partition 0 has a new leader");
        }
        readBackExactlyOnce(survivors, ackedOffset);
    }

    private static void readBackExactlyOnce(String bootstrap, long[] ackedOffset) {
        int[] expectedNext = {0, 1, 2};
        int received = 0;
        try (CairnConsumer consumer = CairnConsumer.create(ConsumerConfig.builder().bootstrapServers(bootstrap)
                .offsetReset(ConsumerConfig.OffsetReset.EARLIEST).build())) {
            List<TopicPartition> assignment = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                assignment.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(assignment);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
            while (received < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord record : consumer.poll(Duration.ofMillis(200))) {
                    int i = ByteBuffer.wrap(record.value()).getInt();
                    assertEquals(expectedNext[record.partition()], i, "in order, no gaps, no duplicates");
                    assertEquals(ackedOffset[i], record.offset(), "read at the acknowledged offset");
                    expectedNext[record.partition()] += PARTITIONS;
                    received++;
                }
            }
            assertTrue(consumer.poll(Duration.ofMillis(500)).isEmpty(), "nothing beyond the records sent");
        }
        assertEquals(RECORDS, received, "records read");
    }
}
