package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeClusterRequest;
import dev.cairn.protocol.message.DescribeClusterResponse;
import dev.cairn.protocol.message.DescribeClusterResponse.DescribeClusterBroker;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeCluster (key 60), version 0, which Admin's describeCluster tries before falling back to Metadata: the
 * registered brokers, the cluster id and the controller, named by the same rule as in Metadata responses so
 * both answers agree. Cairn has no authorizer: a client that asks for the cluster's authorized operations is told
 * all of them, as Kafka without an authorizer tells it.
 */
public final class DescribeClusterHandler implements RequestHandler {
    private final MetadataService metadata;
    private final String clusterId;

    public DescribeClusterHandler(MetadataService metadata, String clusterId) {
        this.metadata = metadata;
        this.clusterId = clusterId;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        boolean askedForOperations = request.body().get(DescribeClusterRequest.INCLUDE_CLUSTER_AUTHORIZED_OPERATIONS);
        // As Kafka: anyone may describe the cluster; one without DESCRIBE on it is told no authorized operations.
        int operations = !askedForOperations ? AuthorizedOperations.OMITTED
                : context.session().allowedOnCluster(AclOperation.DESCRIBE)
                        ? AuthorizedOperations.cluster(true, context.session()) : 0;
        List<Struct> brokers = new ArrayList<>();
        // Live brokers only, as Kafka lists unfenced ones (see MetadataHandler#brokers).
        // Each with its endpoint of the request's listener; a broker without that listener is left out.
        for (BrokerInfo broker : metadata.image().liveBrokers().values()) {
            broker.endpoint(context.session().listenerName()).ifPresent(endpoint -> brokers.add(
                    new Struct(DescribeClusterBroker.SCHEMA)
                            .set(DescribeClusterBroker.BROKER_ID, broker.nodeId())
                            .set(DescribeClusterBroker.HOST, endpoint.host())
                            .set(DescribeClusterBroker.PORT, endpoint.port())
                            .set(DescribeClusterBroker.RACK, null)));
        }
        return CompletableFuture.completedFuture(new Struct(DescribeClusterResponse.SCHEMA)
                .set(DescribeClusterResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeClusterResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(DescribeClusterResponse.ERROR_MESSAGE, null)
                .set(DescribeClusterResponse.CLUSTER_ID, clusterId)
                .set(DescribeClusterResponse.CONTROLLER_ID, MetadataHandler.controllerIdOrSelf(metadata))
                .set(DescribeClusterResponse.BROKERS, brokers)
                .set(DescribeClusterResponse.CLUSTER_AUTHORIZED_OPERATIONS, operations));
    }
}
