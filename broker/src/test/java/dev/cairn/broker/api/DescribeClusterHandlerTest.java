package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.DescribeClusterRequest;
import dev.cairn.protocol.message.DescribeClusterResponse;
import dev.cairn.protocol.message.DescribeClusterResponse.DescribeClusterBroker;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import org.junit.jupiter.api.Test;

/** DescribeCluster v0 (Admin.describeCluster, kafka-protocol.md A.1): brokers, cluster id, controller. */
class DescribeClusterHandlerTest {
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(2, 1);

    private Struct describe() {
        return describe(true);
    }

    private Struct describe(boolean includeAuthorizedOperations) {
        Struct body = new Struct(DescribeClusterRequest.SCHEMA)
                .set(DescribeClusterRequest.INCLUDE_CLUSTER_AUTHORIZED_OPERATIONS, includeAuthorizedOperations);
        return call(new DescribeClusterHandler(metadata, "cairn-cluster-1"),
                request(ApiKey.DESCRIBE_CLUSTER, 0, body));
    }

    @Test
    void listsBrokersClusterIdAndController() {
        metadata.setControllerId(2);
        Struct response = describe();
        assertEquals(ErrorCode.NONE.code(), response.get(DescribeClusterResponse.ERROR_CODE));
        assertNull(response.get(DescribeClusterResponse.ERROR_MESSAGE));
        assertEquals("cairn-cluster-1", response.get(DescribeClusterResponse.CLUSTER_ID));
        assertEquals(2, response.get(DescribeClusterResponse.CONTROLLER_ID));
        // Kafka 4.4 without an authorizer: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS,
        // ALTER_CONFIGS, IDEMPOTENT_WRITE (AclOperation codes 5, 7, 8, 9, 10, 11, 12).
        assertEquals(0b1_1111_1010_0000, response.get(DescribeClusterResponse.CLUSTER_AUTHORIZED_OPERATIONS));
        List<Struct> brokers = response.get(DescribeClusterResponse.BROKERS);
        assertEquals(List.of(1, 2), brokers.stream().map(b -> b.get(DescribeClusterBroker.BROKER_ID)).toList());
        assertEquals("broker1.test", brokers.get(0).get(DescribeClusterBroker.HOST));
        assertEquals(9091, brokers.get(0).get(DescribeClusterBroker.PORT));
        assertNull(brokers.get(0).get(DescribeClusterBroker.RACK));
    }

    @Test
    void authorizedOperationsAreLeftOutUnlessAskedFor() {
        assertEquals(Integer.MIN_VALUE, describe(false).get(DescribeClusterResponse.CLUSTER_AUTHORIZED_OPERATIONS));
    }

    @Test
    void withoutAKnownControllerThisBrokerIsNamedAsInMetadata() {
        metadata.setControllerId(-1);
        metadata.setLocalNodeId(2);
        assertEquals(2, describe().get(DescribeClusterResponse.CONTROLLER_ID));
    }
}
