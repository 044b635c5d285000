package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclFilter;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.PatternType;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeAclsRequest;
import dev.cairn.protocol.message.DescribeAclsResponse;
import dev.cairn.protocol.message.DescribeAclsResponse.AclDescription;
import dev.cairn.protocol.message.DescribeAclsResponse.DescribeAclsResource;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeAcls (key 29, {@code kafka-acls --list}): the bindings of this broker's metadata image that match the
 * filter, grouped by resource pattern as Kafka groups them. Needs DESCRIBE on the cluster.
 */
public final class DescribeAclsHandler implements RequestHandler {

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        ConnectionSession session = context.session();
        if (!session.accessControl().enabled()) {
            return answer(ErrorCode.SECURITY_DISABLED, "No Authorizer is configured on the broker", List.of());
        }
        if (!session.allowedOnCluster(AclOperation.DESCRIBE)) {
            return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.", List.of());
        }
        Optional<AclFilter> filter = AclMessages.filter(body.get(DescribeAclsRequest.RESOURCE_TYPE_FILTER),
                body.get(DescribeAclsRequest.RESOURCE_NAME_FILTER), body.get(DescribeAclsRequest.PATTERN_TYPE_FILTER),
                body.get(DescribeAclsRequest.PRINCIPAL_FILTER), body.get(DescribeAclsRequest.HOST_FILTER),
                body.get(DescribeAclsRequest.OPERATION), body.get(DescribeAclsRequest.PERMISSION_TYPE));
        Optional<String> invalid = filter.isEmpty() ? Optional.of("Unknown filter value")
                : filter.get().invalidReason();
        if (invalid.isPresent()) {
            return answer(ErrorCode.INVALID_REQUEST, invalid.get(), List.of());
        }
        Map<ResourcePattern, List<Struct>> byResource = new LinkedHashMap<>();
        for (AclBinding binding : session.accessControl().bindings()) {
            if (filter.get().matches(binding)) {
                byResource.computeIfAbsent(new ResourcePattern(binding.resourceType(), binding.resourceName(),
                        binding.patternType()), k -> new ArrayList<>()).add(new Struct(AclDescription.SCHEMA)
                        .set(AclDescription.PRINCIPAL, binding.principal())
                        .set(AclDescription.HOST, binding.host())
                        .set(AclDescription.OPERATION, binding.operation().code())
                        .set(AclDescription.PERMISSION_TYPE, binding.permission().code()));
            }
        }
        List<Struct> resources = new ArrayList<>();
        byResource.forEach((key, acls) -> resources.add(new Struct(DescribeAclsResource.SCHEMA)
                .set(DescribeAclsResource.RESOURCE_TYPE, key.type().code())
                .set(DescribeAclsResource.RESOURCE_NAME, key.name())
                .set(DescribeAclsResource.PATTERN_TYPE, key.pattern().code())
                .set(DescribeAclsResource.ACLS, acls)));
        return answer(ErrorCode.NONE, null, resources);
    }

    private record ResourcePattern(ResourceType type, String name, PatternType pattern) {
    }

    private static CompletableFuture<Struct> answer(ErrorCode error, String message, List<Struct> resources) {
        return CompletableFuture.completedFuture(new Struct(DescribeAclsResponse.SCHEMA)
                .set(DescribeAclsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeAclsResponse.ERROR_CODE, error.code())
                .set(DescribeAclsResponse.ERROR_MESSAGE, message)
                .set(DescribeAclsResponse.RESOURCES, resources));
    }
}
