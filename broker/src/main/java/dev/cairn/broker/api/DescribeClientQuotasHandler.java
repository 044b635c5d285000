package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeClientQuotasResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeClientQuotas (key 48): Cairn enforces no client quotas and stores none, so every filter matches no entry,
 * which is the true answer. Served because {@code kafka-configs --describe --entity-type users} asks for quotas
 * before it lists SCRAM credentials, and fails outright when the API is missing. AlterClientQuotas is not served
 * (clients get UNSUPPORTED_VERSION), so no one can set a quota that would then be ignored.
 */
public final class DescribeClientQuotasHandler implements RequestHandler {
    private static final CompletableFuture<Struct> NO_QUOTAS = CompletableFuture.completedFuture(
            new Struct(DescribeClientQuotasResponse.SCHEMA)
                    .set(DescribeClientQuotasResponse.THROTTLE_TIME_MS, 0)
                    .set(DescribeClientQuotasResponse.ERROR_CODE, ErrorCode.NONE.code())
                    .set(DescribeClientQuotasResponse.ERROR_MESSAGE, null)
                    .set(DescribeClientQuotasResponse.ENTRIES, List.of()));

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        if (!context.session().allowedOnCluster(AclOperation.DESCRIBE_CONFIGS)) {
            return CompletableFuture.completedFuture(new Struct(DescribeClientQuotasResponse.SCHEMA)
                    .set(DescribeClientQuotasResponse.THROTTLE_TIME_MS, 0)
                    .set(DescribeClientQuotasResponse.ERROR_CODE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code())
                    .set(DescribeClientQuotasResponse.ERROR_MESSAGE, "Cluster authorization failed.")
                    .set(DescribeClientQuotasResponse.ENTRIES, null));
        }
        return NO_QUOTAS;
    }
}
