package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.InitProducerIdRequest;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * InitProducerId (issue 20): an idempotent producer gets a fresh id; a transactional id is refused when empty or when
 * its timeout exceeds transaction.max.timeout.ms, and goes to its coordinator otherwise (NOT_COORDINATOR before the
 * transaction state topic exists, so the client looks the coordinator up first).
 */
class InitProducerIdHandlerTest {
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final InitProducerIdHandler handler = new InitProducerIdHandler(new ProducerIds(metadata),
            new TransactionCoordinator(metadata, partitions, new TopicCreator(metadata, UUID::randomUUID),
                    new ProducerIds(metadata), 4, 3, 900_000, () -> 0L));

    private Struct init(String transactionalId, int timeoutMs) {
        return call(handler, request(ApiKey.INIT_PRODUCER_ID, 4, new Struct(InitProducerIdRequest.SCHEMA)
                .set(InitProducerIdRequest.TRANSACTIONAL_ID, transactionalId)
                .set(InitProducerIdRequest.TRANSACTION_TIMEOUT_MS, timeoutMs)));
    }

    private static ErrorCode error(Struct response) {
        return ErrorCode.forCode(response.get(InitProducerIdResponse.ERROR_CODE));
    }

    @Test
    void anIdempotentProducerGetsAFreshIdWithEpochZero() {
        Struct first = init(null, 60_000);
        Struct second = init(null, 60_000);
        assertEquals(ErrorCode.NONE, error(first));
        assertTrue(first.get(InitProducerIdResponse.PRODUCER_ID) >= 0);
        assertEquals(first.get(InitProducerIdResponse.PRODUCER_ID) + 1, second.get(InitProducerIdResponse.PRODUCER_ID));
        assertEquals((short) 0, first.get(InitProducerIdResponse.PRODUCER_EPOCH));
    }

    @Test
    void malformedTransactionalRequestsAreRefusedAtOnce() {
        assertEquals(ErrorCode.INVALID_REQUEST, error(init("", 60_000)));
        assertEquals(ErrorCode.INVALID_TRANSACTION_TIMEOUT, error(init("app", 900_001)));
        assertEquals(ErrorCode.INVALID_TRANSACTION_TIMEOUT, error(init("app", 0)));
        assertEquals(-1L, init("app", 900_001).get(InitProducerIdResponse.PRODUCER_ID));
    }

    @Test
    void aTransactionalIdGoesToItsCoordinator() {
        assertEquals(ErrorCode.NOT_COORDINATOR, error(init("app", 60_000)), "no coordinator before the topic");
    }
}
