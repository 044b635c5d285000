package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.TransactionRecord;
import dev.cairn.broker.partition.TxnPartition;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@code transactional.id.expiration.ms} at the coordinator's leader: the ids idle that long are proposed in
 * an entry stamped with the leader's clock and setting (the partition checks them again as it applies), and only in
 * the partitions this broker leads.
 */
class TransactionalIdExpirerTest {
    private static final long EXPIRATION_MS = 10_000;
    private static final TopicPartition LED = new TopicPartition(TransactionCoordinator.TOPIC, 0);
    private static final TopicPartition ELSEWHERE = new TopicPartition(TransactionCoordinator.TOPIC, 1);

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1, 2)
            .withTopic(TransactionCoordinator.TOPIC, 2, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final AtomicLong clockMs = new AtomicLong(1_000);
    private final TransactionCoordinator coordinator = new TransactionCoordinator(metadata, partitions,
            new TopicCreator(metadata, UUID::randomUUID), new ProducerIds(metadata), 2, 1, 900_000, clockMs::get);
    private final TransactionalIdExpirer expirer = new TransactionalIdExpirer(coordinator, EXPIRATION_MS);

    @Test
    void theLeaderProposesIdsIdleForTheExpirationWithItsClockAndSetting() {
        Partition led = partitions.leadLocally(LED);
        partitions.ledElsewhere(ELSEWHERE, 2);
        partitions.submit(LED, new Command.TxnInit("idle", 60_000, 500, -1, (short) -1, 1_000), 1_000).join();
        partitions.submit(LED, new Command.TxnInit("busy", 60_000, 501, -1, (short) -1, 1_000), 1_000).join();
        partitions.submit(LED, new Command.TxnAddPartitions("busy", 501, (short) 0,
                List.of(new TxnPartition("orders", 0)), false, 1_000), 1_000).join();

        clockMs.set(1_000 + EXPIRATION_MS - 1);
        expirer.run();
        assertEquals(List.of(), expiries(), "nothing idle for long enough: nothing proposed");

        clockMs.set(1_000 + EXPIRATION_MS);
        expirer.run();
        assertEquals(List.of(new Command.TxnExpireIds(List.of("idle"), EXPIRATION_MS, 1_000 + EXPIRATION_MS)),
                expiries());
        assertEquals(List.of("busy"), led.coordinatedTransactions(false).stream()
                .map(TransactionRecord::transactionalId).toList(), "an open transaction's id stays");
    }

    private List<Command> expiries() {
        return partitions.submitted().stream().filter(c -> c instanceof Command.TxnExpireIds).toList();
    }
}
