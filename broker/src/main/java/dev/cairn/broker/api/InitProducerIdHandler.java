package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.InitProducerIdRequest;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/**
 * InitProducerId (key 22) for idempotent producers: a cluster-unique producer id with epoch 0. Ids come from
 * blocks reserved through the metadata group, so no two brokers hand out the same id. As in Kafka, a request
 * without a transactional id always gets a fresh id, even when it names its old id and epoch (v3+, KIP-360).
 * Transactions are not served yet (issue 20): a transactional id is answered UNSUPPORTED_VERSION, Kafka's error for
 * a feature the broker does not offer, which clients treat as fatal rather than retrying forever.
 */
public final class InitProducerIdHandler implements RequestHandler {
    private final MetadataService metadata;
    private long nextProducerId;
    private long blockEnd;
    private CompletableFuture<MetadataResult> pendingBlock;

    public InitProducerIdHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        if (request.body().get(InitProducerIdRequest.TRANSACTIONAL_ID) != null) {
            return CompletableFuture.completedFuture(response(ErrorCode.UNSUPPORTED_VERSION, -1));
        }
        // Kafka: an idempotent producer needs IDEMPOTENT_WRITE on the cluster, or WRITE on some topic.
        ConnectionSession session = context.session();
        if (!session.allowedOnCluster(AclOperation.IDEMPOTENT_WRITE)
                && !session.allowedOnAny(AclOperation.WRITE, ResourceType.TOPIC)) {
            return CompletableFuture.completedFuture(response(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1));
        }
        return nextProducerId().thenApply(id -> id < 0 ? response(ErrorCode.COORDINATOR_NOT_AVAILABLE, -1)
                : response(ErrorCode.NONE, id));
    }

    /** The next id of the current block, reserving a new block when it runs out; -1 when none can be had. */
    private synchronized CompletableFuture<Long> nextProducerId() {
        if (nextProducerId < blockEnd) {
            return CompletableFuture.completedFuture(nextProducerId++);
        }
        if (pendingBlock == null) {
            pendingBlock = metadata.submit(new MetadataCommand.AllocateProducerIds(metadata.localNodeId()));
        }
        return pendingBlock.thenCompose(result -> onBlock(result));
    }

    private synchronized CompletableFuture<Long> onBlock(MetadataResult result) {
        pendingBlock = null;
        if (result instanceof MetadataResult.ProducerIds block) {
            if (nextProducerId >= blockEnd) {
                nextProducerId = block.firstProducerId();
                blockEnd = block.firstProducerId() + block.count();
            }
            return nextProducerId();
        }
        return CompletableFuture.completedFuture(-1L);
    }

    private static Struct response(ErrorCode error, long producerId) {
        return new Struct(InitProducerIdResponse.SCHEMA)
                .set(InitProducerIdResponse.THROTTLE_TIME_MS, 0)
                .set(InitProducerIdResponse.ERROR_CODE, error.code())
                .set(InitProducerIdResponse.PRODUCER_ID, producerId)
                .set(InitProducerIdResponse.PRODUCER_EPOCH, (short) (producerId < 0 ? -1 : 0));
    }
}
