package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.CreateAclsRequest;
import dev.cairn.protocol.message.CreateAclsRequest.AclCreation;
import dev.cairn.protocol.message.CreateAclsResponse;
import dev.cairn.protocol.message.CreateAclsResponse.AclCreationResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * CreateAcls (key 30, {@code kafka-acls --add}): valid bindings go to the metadata group in one command and hold on
 * every broker once applied; each creation gets its own result. The caller needs ALTER on the cluster
 * (CLUSTER_AUTHORIZATION_FAILED otherwise); without an authorizer the answer is SECURITY_DISABLED, as in Kafka.
 */
public final class CreateAclsHandler implements RequestHandler {
    private final MetadataService metadata;

    public CreateAclsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> creations = request.body().get(CreateAclsRequest.CREATIONS);
        ConnectionSession session = context.session();
        if (!session.accessControl().enabled()) {
            return answer(Collections.nCopies(creations.size(), result(ErrorCode.SECURITY_DISABLED,
                    "No Authorizer is configured on the broker")));
        }
        if (creations.size() > Limits.SECURITY_CHANGES_PER_ENTRY_MAX) {
            return answer(Collections.nCopies(creations.size(), result(ErrorCode.INVALID_REQUEST,
                    "a CreateAcls request may create at most " + Limits.SECURITY_CHANGES_PER_ENTRY_MAX + " ACLs")));
        }
        if (!session.allowedOnCluster(AclOperation.ALTER)) {
            return answer(Collections.nCopies(creations.size(), result(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    "Cluster authorization failed.")));
        }
        Struct[] results = new Struct[creations.size()];
        List<byte[]> additions = new ArrayList<>();
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < creations.size(); i++) {
            Struct c = creations.get(i);
            Optional<AclBinding> binding = AclMessages.binding(c.get(AclCreation.RESOURCE_TYPE),
                    c.get(AclCreation.RESOURCE_NAME), c.get(AclCreation.RESOURCE_PATTERN_TYPE),
                    c.get(AclCreation.PRINCIPAL), c.get(AclCreation.HOST), c.get(AclCreation.OPERATION),
                    c.get(AclCreation.PERMISSION_TYPE));
            Optional<String> invalid = binding.isEmpty() ? Optional.of("Unknown resource type, pattern type, "
                    + "operation or permission type") : binding.get().invalidReason();
            if (invalid.isPresent()) {
                results[i] = result(ErrorCode.INVALID_REQUEST, invalid.get());
            } else {
                additions.add(binding.get().encode());
                pending.add(i);
            }
        }
        CompletableFuture<MetadataResult> applied = additions.isEmpty()
                ? CompletableFuture.completedFuture(MetadataResult.OK)
                : metadata.submit(new MetadataCommand.AlterAcls(List.of(), additions));
        return applied.thenCompose(outcome -> {
            Struct shared = outcome instanceof MetadataResult.Rejected r ? result(r.error(), r.message())
                    : result(ErrorCode.NONE, null);
            for (int i : pending) {
                results[i] = shared;
            }
            return answer(List.of(results));
        });
    }

    private static Struct result(ErrorCode error, String message) {
        return new Struct(AclCreationResult.SCHEMA).set(AclCreationResult.ERROR_CODE, error.code())
                .set(AclCreationResult.ERROR_MESSAGE, message);
    }

    private static CompletableFuture<Struct> answer(List<Struct> results) {
        return CompletableFuture.completedFuture(new Struct(CreateAclsResponse.SCHEMA)
                .set(CreateAclsResponse.THROTTLE_TIME_MS, 0).set(CreateAclsResponse.RESULTS, results));
    }
}
