package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclFilter;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DeleteAclsRequest;
import dev.cairn.protocol.message.DeleteAclsRequest.DeleteAclsFilter;
import dev.cairn.protocol.message.DeleteAclsResponse;
import dev.cairn.protocol.message.DeleteAclsResponse.DeleteAclsFilterResult;
import dev.cairn.protocol.message.DeleteAclsResponse.DeleteAclsMatchingAcl;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteAcls (key 31, {@code kafka-acls --remove}): each filter is matched against this broker's image, and the
 * matched bindings are removed in one metadata command; each filter's result lists what it matched. Needs ALTER on
 * the cluster.
 */
public final class DeleteAclsHandler implements RequestHandler {
    private final MetadataService metadata;

    public DeleteAclsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> filters = request.body().get(DeleteAclsRequest.FILTERS);
        ConnectionSession session = context.session();
        if (!session.accessControl().enabled()) {
            return answer(everyFilter(filters.size(), ErrorCode.SECURITY_DISABLED,
                    "No Authorizer is configured on the broker"));
        }
        if (!session.allowedOnCluster(AclOperation.ALTER)) {
            return answer(everyFilter(filters.size(), ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    "Cluster authorization failed."));
        }
        List<AclBinding> bindings = session.accessControl().bindings();
        List<Struct> results = new ArrayList<>();
        Set<AclBinding> removed = new LinkedHashSet<>();
        for (Struct f : filters) {
            Optional<AclFilter> filter = AclMessages.filter(f.get(DeleteAclsFilter.RESOURCE_TYPE_FILTER),
                    f.get(DeleteAclsFilter.RESOURCE_NAME_FILTER), f.get(DeleteAclsFilter.PATTERN_TYPE_FILTER),
                    f.get(DeleteAclsFilter.PRINCIPAL_FILTER), f.get(DeleteAclsFilter.HOST_FILTER),
                    f.get(DeleteAclsFilter.OPERATION), f.get(DeleteAclsFilter.PERMISSION_TYPE));
            Optional<String> invalid = filter.isEmpty() ? Optional.of("Unknown filter value")
                    : filter.get().invalidReason();
            if (invalid.isPresent()) {
                results.add(filterResult(ErrorCode.INVALID_REQUEST, invalid.get(), List.of()));
                continue;
            }
            List<Struct> matched = new ArrayList<>();
            for (AclBinding binding : bindings) {
                if (filter.get().matches(binding)) {
                    removed.add(binding);
                    matched.add(matching(binding));
                }
            }
            results.add(filterResult(ErrorCode.NONE, null, matched));
        }
        if (removed.isEmpty()) {
            return answer(results);
        }
        List<byte[]> removals = removed.stream().map(AclBinding::encode).toList();
        return removeInEntries(removals, 0).thenCompose(outcome -> {
            if (outcome instanceof MetadataResult.Rejected r) {
                return answer(everyFilter(filters.size(), r.error(), r.message()));
            }
            return answer(results);
        });
    }

    /** Removes the bindings in metadata entries of at most {@link Limits#SECURITY_CHANGES_PER_ENTRY_MAX}, in turn. */
    private CompletableFuture<MetadataResult> removeInEntries(List<byte[]> removals, int from) {
        int to = Math.min(removals.size(), from + Limits.SECURITY_CHANGES_PER_ENTRY_MAX);
        return metadata.submit(new MetadataCommand.AlterAcls(removals.subList(from, to), List.of()))
                .thenCompose(outcome -> outcome instanceof MetadataResult.Rejected || to == removals.size()
                        ? CompletableFuture.completedFuture(outcome) : removeInEntries(removals, to));
    }

    private static Struct matching(AclBinding binding) {
        return new Struct(DeleteAclsMatchingAcl.SCHEMA)
                .set(DeleteAclsMatchingAcl.ERROR_CODE, ErrorCode.NONE.code())
                .set(DeleteAclsMatchingAcl.ERROR_MESSAGE, null)
                .set(DeleteAclsMatchingAcl.RESOURCE_TYPE, binding.resourceType().code())
                .set(DeleteAclsMatchingAcl.RESOURCE_NAME, binding.resourceName())
                .set(DeleteAclsMatchingAcl.PATTERN_TYPE, binding.patternType().code())
                .set(DeleteAclsMatchingAcl.PRINCIPAL, binding.principal())
                .set(DeleteAclsMatchingAcl.HOST, binding.host())
                .set(DeleteAclsMatchingAcl.OPERATION, binding.operation().code())
                .set(DeleteAclsMatchingAcl.PERMISSION_TYPE, binding.permission().code());
    }

    private static List<Struct> everyFilter(int count, ErrorCode error, String message) {
        List<Struct> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            results.add(filterResult(error, message, List.of()));
        }
        return results;
    }

    private static Struct filterResult(ErrorCode error, String message, List<Struct> matched) {
        return new Struct(DeleteAclsFilterResult.SCHEMA)
                .set(DeleteAclsFilterResult.ERROR_CODE, error.code())
                .set(DeleteAclsFilterResult.ERROR_MESSAGE, message)
                .set(DeleteAclsFilterResult.MATCHING_ACLS, matched);
    }

    private static CompletableFuture<Struct> answer(List<Struct> results) {
        return CompletableFuture.completedFuture(new Struct(DeleteAclsResponse.SCHEMA)
                .set(DeleteAclsResponse.THROTTLE_TIME_MS, 0)
                .set(DeleteAclsResponse.FILTER_RESULTS, results));
    }
}
