package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TransactionIndex.Aborted;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions' partition half on a real three-broker cluster (issue 20): transactional batches and the markers that
 * end them go through a partition's Raft group (a marker from a broker that does not lead the partition, as a
 * transaction coordinator elsewhere sends it, as well as from the leader), every replica ends with the same last
 * stable offset and aborted transactions, and Kafka's own consumer reads with read_committed exactly the records of
 * committed transactions and none of an aborted or open one. The batches are submitted to the partition directly,
 * each batch that opens a transaction registered as verified first (what the produce path does once the producer's
 * coordinator confirmed it, KIP-890); an unregistered one is refused.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TransactionMarkersIT {
    private static final String TOPIC = "txn-markers";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long PRODUCER = 77_000L;
    private static final short EPOCH = 0;
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

    @Test
    void readCommittedConsumersSeeOnlyCommittedTransactionsOnEveryReplica() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }
        int leader = awaitLeader();
        int other = leader % 3 + 1;

        Result unverified = cluster.broker(leader).partitions().submit(TP,
                append(PartitionTestBatches.transactional(3, PRODUCER, EPOCH, 0)), WAIT_MS).get();
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, assertInstanceOf(Result.Rejected.class, unverified).error(),
                "a batch that opens a transaction without verification is refused");
        verified(leader, 0);
        submit(leader, append(PartitionTestBatches.transactional(3, PRODUCER, EPOCH, 0)));        // 0-2
        Result aborted = cluster.broker(other).partitions().submitViaLeader(TP, marker(false), WAIT_MS).get();
        assertEquals(3, assertInstanceOf(Result.Appended.class, aborted).baseOffset(), "the abort marker");
        submit(leader, append(PartitionTestBatches.plain(1)));                                     // 4
        verified(leader, 3);
        submit(leader, append(PartitionTestBatches.transactional(2, PRODUCER, EPOCH, 3)));        // 5-6
        submit(leader, marker(true));                                                              // 7
        verified(leader, 5);
        submit(leader, append(PartitionTestBatches.transactional(2, PRODUCER, EPOCH, 5)));        // 8-9, open

        for (int node = 1; node <= 3; node++) {
            Partition replica = awaitReplicaAt(node, 10);
            assertEquals(8, replica.lastStableOffset(), "broker " + node + ": the open transaction starts at 8");
            assertEquals(List.of(new Aborted(PRODUCER, 0, 3)), replica.abortedTransactions(0, 10), "broker " + node);
        }
        assertEquals(List.of(4L, 5L, 6L), offsetsRead("read_committed", 3));
        assertEquals(List.of(0L, 1L, 2L, 4L, 5L, 6L, 8L, 9L), offsetsRead("read_uncommitted", 8));

        submit(leader, marker(true));                                                              // 10
        assertEquals(List.of(4L, 5L, 6L, 8L, 9L), offsetsRead("read_committed", 5));

        // A zombie's batch: verified, then its producer's transaction is ended (from another broker) before the
        // batch reaches the partition. It must not open a transaction that no marker will end.
        verified(leader, 7);
        submitViaOther(other, marker(false));                                                      // 11
        Result zombie = cluster.broker(leader).partitions().submit(TP,
                append(PartitionTestBatches.transactional(1, PRODUCER, EPOCH, 7)), WAIT_MS).get();
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, assertInstanceOf(Result.Rejected.class, zombie).error(),
                "a marker came between the verification and the batch: " + zombie);
        submit(leader, append(PartitionTestBatches.plain(1)));                                     // 12
        for (int node = 1; node <= 3; node++) {
            assertEquals(13, awaitReplicaAt(node, 13).lastStableOffset(), "broker " + node + ": nothing is open");
        }
    }

    private static Command append(ByteBuffer batch) {
        return new Command.Append(batch, System.currentTimeMillis());
    }

    private static Command marker(boolean commit) {
        return new Command.TxnMarker(PRODUCER, EPOCH, commit, 0, System.currentTimeMillis());
    }

    /** As the produce path registers a batch once the coordinator confirmed its partition is in the transaction. */
    private void verified(int leader, int firstSequence) {
        cluster.broker(leader).partitions().leaderReplica(TP).orElseThrow().verifications().register(PRODUCER, EPOCH,
                firstSequence);
    }

    private void submit(int node, Command command) throws Exception {
        Result result = cluster.broker(node).partitions().submit(TP, command, WAIT_MS).get();
        assertInstanceOf(Result.Appended.class, result, command.getClass().getSimpleName() + ": " + result);
    }

    private void submitViaOther(int node, Command command) throws Exception {
        Result result = cluster.broker(node).partitions().submitViaLeader(TP, command, WAIT_MS).get();
        assertInstanceOf(Result.Appended.class, result, command.getClass().getSimpleName() + ": " + result);
    }

    private int awaitLeader() throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (System.currentTimeMillis() < deadline) {
            for (int node = 1; node <= 3; node++) {
                if (cluster.broker(node).partitions().leaderReplica(TP).isPresent()) {
                    return node;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new AssertionError(TP + " has no ready leader after " + WAIT_MS + " ms");
    }

    private Partition awaitReplicaAt(int node, long highWatermark) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (System.currentTimeMillis() < deadline) {
            Optional<Partition> replica = cluster.broker(node).localReplica(TOPIC, 0);
            if (replica.isPresent() && replica.get().highWatermark() >= highWatermark) {
                return replica.get();
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new AssertionError("broker " + node + " did not apply up to offset " + highWatermark);
    }

    /** The offsets a Kafka consumer with {@code isolation} reads from the start, once it has {@code expected}. */
    private List<Long> offsetsRead(String isolation, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<Long> offsets = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(TOPIC, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (offsets.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    offsets.add(record.offset());
                }
            }
            // Whatever else is readable arrives with the next polls: none may follow.
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> offsets.add(record.offset()));
            }
        }
        return offsets;
    }
}
