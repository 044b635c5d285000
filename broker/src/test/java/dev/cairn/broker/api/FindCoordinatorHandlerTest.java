package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.FindCoordinatorRequest;
import dev.cairn.protocol.message.FindCoordinatorResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FindCoordinator v0-2 (kafka-protocol.md A.1: the assign + commitSync flow starts here): the group's
 * coordinator is one broker chosen from the group id; a transactional id's is its state partition's leader.
 */
class FindCoordinatorHandlerTest {

    private static Struct find(FakeMetadataService metadata, int version, String key, byte keyType) {
        return find(metadata, new FakeReplicatedPartitions(), version, key, keyType);
    }

    private static Struct find(FakeMetadataService metadata, FakeReplicatedPartitions partitions, int version,
            String key, byte keyType) {
        Struct body = new Struct(FindCoordinatorRequest.SCHEMA).set(FindCoordinatorRequest.KEY, key)
                .set(FindCoordinatorRequest.KEY_TYPE, keyType);
        TransactionCoordinator transactions = new TransactionCoordinator(metadata, partitions,
                new TopicCreator(metadata, java.util.UUID::randomUUID), new ProducerIds(metadata), 4, 3, 900_000,
                () -> 0L);
        return call(new FindCoordinatorHandler(metadata, transactions), request(ApiKey.FIND_COORDINATOR, version,
                body));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void aSingleBrokerCoordinatesEveryGroup(int version) {
        FakeMetadataService metadata = new FakeMetadataService().withBrokers(1);
        for (String group : new String[] {"orders-app", "", "billing"}) {
            Struct response = find(metadata, version, group, FindCoordinatorHandler.KEY_TYPE_GROUP);
            assertEquals(ErrorCode.NONE.code(), response.get(FindCoordinatorResponse.ERROR_CODE));
            assertEquals(1, response.get(FindCoordinatorResponse.NODE_ID));
            assertEquals("broker1.test", response.get(FindCoordinatorResponse.HOST));
            assertEquals(9091, response.get(FindCoordinatorResponse.PORT));
            if (version >= 1) {
                // v0 has no error message field; from v1 a success carries a null message.
                assertNull(response.get(FindCoordinatorResponse.ERROR_MESSAGE));
            }
        }
    }

    @Test
    void theCoordinatorIsTheSameFunctionOfTheGroupIdOnEveryBrokerAndSpreadsGroups() {
        FakeMetadataService metadata = new FakeMetadataService().withBrokers(3, 1, 2);
        Set<Integer> coordinators = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            String group = "group-" + i;
            int expected = 1 + Math.floorMod(group.hashCode(), 3);
            for (int localNode = 1; localNode <= 3; localNode++) {
                metadata.setLocalNodeId(localNode);
                Struct response = find(metadata, 2, group, FindCoordinatorHandler.KEY_TYPE_GROUP);
                assertEquals(expected, response.get(FindCoordinatorResponse.NODE_ID), group);
            }
            BrokerInfo chosen = FindCoordinatorHandler.coordinatorFor(group, metadata.image().brokers());
            assertEquals(expected, chosen.nodeId());
            coordinators.add(expected);
        }
        assertEquals(Set.of(1, 2, 3), coordinators, "30 groups over 3 brokers use every broker");
    }

    /** Issue 20: the transaction state topic is created at the first lookup; then its partition's leader answers. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aTransactionalIdIsCoordinatedByItsStatePartitionsLeader(int version) {
        FakeMetadataService metadata = new FakeMetadataService().withBrokers(1);
        FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
        Struct first = find(metadata, partitions, version, "tx-1", FindCoordinatorHandler.KEY_TYPE_TRANSACTION);
        assertEquals(ErrorCode.COORDINATOR_NOT_AVAILABLE.code(), first.get(FindCoordinatorResponse.ERROR_CODE));
        assertTrue(ErrorCode.COORDINATOR_NOT_AVAILABLE.retriable());
        assertEquals(-1, first.get(FindCoordinatorResponse.NODE_ID));
        assertEquals(1, metadata.image().topics().get(TransactionCoordinator.TOPIC).replicas().get(0).size(),
                "created with as many replicas as there are brokers, at most transaction.state.log.replication.factor");

        partitions.leadLocally(new dev.cairn.broker.cluster.TopicPartition(TransactionCoordinator.TOPIC,
                Math.floorMod("tx-1".hashCode(), 4)));
        Struct found = find(metadata, partitions, version, "tx-1", FindCoordinatorHandler.KEY_TYPE_TRANSACTION);
        assertEquals(ErrorCode.NONE.code(), found.get(FindCoordinatorResponse.ERROR_CODE));
        assertEquals(FakeReplicatedPartitions.LOCAL_NODE_ID, found.get(FindCoordinatorResponse.NODE_ID));
        assertNotNull(found.get(FindCoordinatorResponse.HOST));
    }

    @Test
    void anUnknownKeyTypeIsAnInvalidRequest() {
        Struct response = find(new FakeMetadataService().withBrokers(1), 2, "x", (byte) 2);
        assertEquals(ErrorCode.INVALID_REQUEST.code(), response.get(FindCoordinatorResponse.ERROR_CODE));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void withNoRegisteredBrokerTheCoordinatorIsNotAvailableYet(int version) {
        Struct response = find(new FakeMetadataService(), version, "g", FindCoordinatorHandler.KEY_TYPE_GROUP);
        assertEquals(ErrorCode.COORDINATOR_NOT_AVAILABLE.code(), response.get(FindCoordinatorResponse.ERROR_CODE));
        assertTrue(ErrorCode.COORDINATOR_NOT_AVAILABLE.retriable());
        assertEquals(-1, response.get(FindCoordinatorResponse.NODE_ID));
    }
}
