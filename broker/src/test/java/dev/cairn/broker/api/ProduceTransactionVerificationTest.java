package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceRequest.PartitionProduceData;
import dev.cairn.protocol.message.ProduceRequest.TopicProduceData;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.PartitionProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.TopicProduceResponse;
import dev.cairn.protocol.record.BatchValidationConfig;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * KIP-890 on the produce path: a transactional batch that would open a transaction at a partition is taken only when
 * the producer's coordinator says the partition is in its ongoing transaction.
 */
class ProduceTransactionVerificationTest {
    private static final String ID = "verified-app";
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1).withTopic("orders", 1, 1)
            .withTopic(TransactionCoordinator.TOPIC, 4, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final TransactionCoordinator coordinator = new TransactionCoordinator(metadata, partitions,
            new TopicCreator(metadata, UUID::randomUUID), new ProducerIds(metadata), 4, 1, 900_000, () -> 0L);
    private final ProduceHandler handler = new ProduceHandler(metadata, partitions, BatchValidationConfig.DEFAULTS,
            BatchValidationConfig.DEFAULTS.messageBytesMax(), System::currentTimeMillis, coordinator);
    private long producerId;

    @BeforeEach
    void aProducerSession() {
        partitions.leadLocally(ORDERS_0);
        partitions.leadLocally(new TopicPartition(TransactionCoordinator.TOPIC, Math.floorMod(ID.hashCode(), 4)));
        Result.TxnAnswer init = coordinator.initProducerId(ID, 60_000, -1, (short) -1).join();
        assertEquals(ErrorCode.NONE, init.error());
        producerId = init.producerId();
    }

    private ErrorCode produce(String transactionalId, int baseSequence) {
        return error(call(handler, request(ApiKey.PRODUCE, 7, body(transactionalId, baseSequence))));
    }

    private static ErrorCode error(Struct response) {
        Struct partition = response.get(ProduceResponse.RESPONSES).get(0)
                .get(TopicProduceResponse.PARTITION_RESPONSES).get(0);
        return ErrorCode.forCode(partition.get(PartitionProduceResponse.ERROR_CODE));
    }

    private Struct body(String transactionalId, int baseSequence) {
        return new Struct(ProduceRequest.SCHEMA).set(ProduceRequest.TRANSACTIONAL_ID, transactionalId)
                .set(ProduceRequest.ACKS, (short) -1).set(ProduceRequest.TIMEOUT_MS, 30_000)
                .set(ProduceRequest.TOPIC_DATA, List.of(new Struct(TopicProduceData.SCHEMA)
                        .set(TopicProduceData.NAME, "orders").set(TopicProduceData.PARTITION_DATA, List.of(
                                new Struct(PartitionProduceData.SCHEMA).set(PartitionProduceData.INDEX, 0)
                                        .set(PartitionProduceData.RECORDS, ByteBufferRecords.of(
                                                PartitionTestBatches.transactional(2, producerId, (short) 0,
                                                        baseSequence)))))));
    }

    /**
     * Two batches of a producer arrive before either is in: each is verified, and the second's verification ends
     * first. They are still submitted in the order they came (the other way round the second is out of sequence).
     */
    @Test
    void batchesAreSubmittedInTheOrderTheyCameWhateverOrderTheirVerificationsEnd() throws Exception {
        assertEquals(ErrorCode.NONE, coordinator.submit(ID, new Command.TxnAddPartitions(ID, producerId, (short) 0,
                List.of(new TxnPartition("orders", 0)), false, 0L)).join().error());
        partitions.holdSubmitsViaLeader(command -> command instanceof Command.TxnVerify);
        java.util.concurrent.CompletableFuture<Struct> first = handler.handle(ApiTestSupport.CONTEXT,
                request(ApiKey.PRODUCE, 7, body(ID, 0)));
        java.util.concurrent.CompletableFuture<Struct> second = handler.handle(ApiTestSupport.CONTEXT,
                request(ApiKey.PRODUCE, 7, body(ID, 2)));
        partitions.release(1);
        partitions.release(0);
        assertEquals(ErrorCode.NONE, error(first.get(10, java.util.concurrent.TimeUnit.SECONDS)));
        assertEquals(ErrorCode.NONE, error(second.get(10, java.util.concurrent.TimeUnit.SECONDS)));
        assertEquals(4, partitions.leaderReplica(ORDERS_0).orElseThrow().highWatermark());
    }

    @Test
    void aPartitionOutsideTheTransactionRefusesItsBatch() {
        assertEquals(ErrorCode.INVALID_TXN_STATE, produce(ID, 0), "no AddPartitionsToTxn for orders-0");
        assertEquals(List.of(), partitions.submitted().stream().filter(c -> c instanceof Command.Append).toList());
    }

    @Test
    void aPartitionInTheTransactionTakesItsBatch() {
        assertEquals(ErrorCode.NONE, coordinator.submit(ID, new Command.TxnAddPartitions(ID, producerId, (short) 0,
                List.of(new TxnPartition("orders", 0)), false, 0L)).join().error());
        assertEquals(ErrorCode.NONE, produce(ID, 0));
    }

    @Test
    void aTransactionalBatchWithoutATransactionalIdIsAnInvalidRequest() {
        assertEquals(ErrorCode.INVALID_REQUEST, produce(null, 0));
    }
}
