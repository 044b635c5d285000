package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupCoordinator.GroupDeletion;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DeleteGroupsRequest;
import dev.cairn.protocol.message.DeleteGroupsResponse;
import dev.cairn.protocol.message.DeleteGroupsResponse.DeletableGroupResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteGroups (key 42), versions 0-2 ({@code kafka-consumer-groups --delete}, {@code Admin.deleteConsumerGroups}).
 * Per group, as Kafka answers: INVALID_GROUP_ID for an empty id, NOT_COORDINATOR when another broker coordinates
 * it, NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND when this coordinator neither holds it nor finds a
 * committed offset of it in any partition; otherwise the group is forgotten and every committed offset of it is
 * deleted through its partition's Raft group, and the answer is NONE once all deletions committed.
 */
public final class DeleteGroupsHandler implements RequestHandler {
    private final GroupCoordinator coordinator;
    private final GroupOffsets offsets;

    public DeleteGroupsHandler(GroupCoordinator coordinator, MetadataService metadata,
            ReplicatedPartitions partitions) {
        this.coordinator = coordinator;
        this.offsets = new GroupOffsets(metadata, partitions);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<String> names = request.body().get(DeleteGroupsRequest.GROUPS_NAMES);
        List<CompletableFuture<Struct>> results = new ArrayList<>();
        // One group at a time: finding a group's offsets reads every partition's leader, so a request naming many
        // groups keeps one group's reads in flight, not groups x partitions of them.
        CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
        for (String groupId : names) {
            CompletableFuture<ErrorCode> outcome = context.session().allowedOnGroup(AclOperation.DELETE, groupId)
                    ? previous.handle((ignored, error) -> null).thenCompose(ignored -> delete(groupId))
                    : CompletableFuture.completedFuture(ErrorCode.GROUP_AUTHORIZATION_FAILED);
            previous = outcome;
            results.add(outcome.thenApply(error -> new Struct(DeletableGroupResult.SCHEMA)
                    .set(DeletableGroupResult.GROUP_ID, groupId)
                    .set(DeletableGroupResult.ERROR_CODE, error.code())));
        }
        return ProduceHandler.allOf(results).thenApply(answers -> new Struct(DeleteGroupsResponse.SCHEMA)
                .set(DeleteGroupsResponse.THROTTLE_TIME_MS, 0)
                .set(DeleteGroupsResponse.RESULTS, answers));
    }

    private CompletableFuture<ErrorCode> delete(String groupId) {
        ErrorCode error = offsets.coordinatorError(groupId);
        if (error != null) {
            return CompletableFuture.completedFuture(error);
        }
        GroupDeletion deletion = coordinator.deleteGroup(groupId);
        if (deletion == GroupDeletion.NOT_EMPTY) {
            return CompletableFuture.completedFuture(ErrorCode.NON_EMPTY_GROUP);
        }
        return offsets.committedPartitions(groupId).thenCompose(found -> {
            if (found.error() != ErrorCode.NONE) {
                return CompletableFuture.completedFuture(found.error());
            }
            if (found.partitions().isEmpty()) {
                return CompletableFuture.completedFuture(deletion == GroupDeletion.REMOVED ? ErrorCode.NONE
                        : ErrorCode.GROUP_ID_NOT_FOUND);
            }
            return offsets.delete(groupId, found.partitions()).thenApply(GroupOffsets.Deleted::error);
        });
    }
}
