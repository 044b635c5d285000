package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupListing;
import dev.cairn.broker.group.GroupState;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListGroupsRequest;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.ListGroupsResponse.ListedGroup;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * ListGroups (key 16), versions 0-5: the groups this broker coordinates. Admin asks every broker and merges the
 * answers, so each broker lists only its own groups, as in Kafka. From v4 each group carries its state and a client
 * may filter by state; from v5 each carries its type and a client may filter by type. Filters match Kafka's names
 * ignoring case, and an empty filter matches everything. Cairn's groups are all of Kafka's "classic" type (the
 * JoinGroup/SyncGroup protocol), so a filter naming only other types (consumer, share, streams) lists nothing.
 *
 * <p>Besides the groups in the coordinator's memory, a broker lists the groups it coordinates that have committed
 * offsets but no members (state Empty, no protocol type), as Kafka lists a group it loaded from its offsets topic:
 * after a restart, or for consumers that only commit ({@code assign()}). Committed offsets live in each partition's
 * Raft group, so these are read from every partition's leader (one read-only query per partition, as DeleteGroups
 * reads them), never from a follower replica, which may lag. A read that fails or times out makes the answer
 * COORDINATOR_LOAD_IN_PROGRESS, which clients retry, rather than a list missing groups.
 */
public final class ListGroupsHandler implements RequestHandler {
    /** Kafka's name for the JoinGroup/SyncGroup group type, the only one Cairn serves. */
    static final String CLASSIC_GROUP_TYPE = "classic";

    private final GroupCoordinator coordinator;
    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    /** Lists only the groups in the coordinator's memory. */
    public ListGroupsHandler(GroupCoordinator coordinator) {
        this(coordinator, null, null);
    }

    /**
     * @param partitions reads each partition's committed groups from its leader
     */
    public ListGroupsHandler(GroupCoordinator coordinator, MetadataService metadata, ReplicatedPartitions partitions) {
        this.coordinator = coordinator;
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Set<String> states = lowerCase(request.body().get(ListGroupsRequest.STATES_FILTER));
        Set<String> types = lowerCase(request.body().get(ListGroupsRequest.TYPES_FILTER));
        if (!types.isEmpty() && !types.contains(CLASSIC_GROUP_TYPE)) {
            return CompletableFuture.completedFuture(response(ErrorCode.NONE, List.of()));
        }
        return listings().thenApply(listings -> {
            if (listings == null) {
                return response(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, List.of());
            }
            List<Struct> groups = new ArrayList<>();
            // Kafka lists every group to a principal with DESCRIBE on the cluster, else those it may describe.
            boolean allGroups = context.session().allowedOnCluster(AclOperation.DESCRIBE);
            for (GroupListing listing : listings) {
                if (!allGroups && !context.session().allowedOnGroup(AclOperation.DESCRIBE, listing.groupId())) {
                    continue;
                }
                String state = listing.state().displayName();
                if (states.isEmpty() || states.contains(state.toLowerCase(Locale.ROOT))) {
                    groups.add(new Struct(ListedGroup.SCHEMA)
                            .set(ListedGroup.GROUP_ID, listing.groupId())
                            .set(ListedGroup.PROTOCOL_TYPE, listing.protocolType())
                            .set(ListedGroup.GROUP_STATE, state)
                            .set(ListedGroup.GROUP_TYPE, CLASSIC_GROUP_TYPE));
                }
            }
            return response(ErrorCode.NONE, groups);
        });
    }

    private static Struct response(ErrorCode error, List<Struct> groups) {
        return new Struct(ListGroupsResponse.SCHEMA)
                .set(ListGroupsResponse.THROTTLE_TIME_MS, 0)
                .set(ListGroupsResponse.ERROR_CODE, error.code())
                .set(ListGroupsResponse.GROUPS, groups);
    }

    /**
     * The coordinator's groups, then the groups this broker coordinates that only have committed offsets; null when a
     * partition's committed groups could not be read.
     */
    private CompletableFuture<List<GroupListing>> listings() {
        List<GroupListing> listings = new ArrayList<>(coordinator.listGroups());
        if (metadata == null) {
            return CompletableFuture.completedFuture(listings);
        }
        MetadataImage image = metadata.image();
        List<CompletableFuture<Result>> reads = new ArrayList<>();
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                reads.add(partitions.committedGroups(new TopicPartition(topic.name(), p), GroupOffsets.TIMEOUT_MS));
            }
        }
        return ProduceHandler.allOf(reads).thenApply(results -> {
            Set<String> committedOnly = new TreeSet<>();
            for (Result result : results) {
                if (!(result instanceof Result.GroupsListed listed)) {
                    return null;
                }
                committedOnly.addAll(listed.groups());
            }
            listings.forEach(listing -> committedOnly.remove(listing.groupId()));
            var brokers = image.liveBrokers();
            for (String groupId : committedOnly) {
                var coordinatorBroker = FindCoordinatorHandler.coordinatorFor(groupId, brokers);
                if (coordinatorBroker != null && coordinatorBroker.nodeId() == metadata.localNodeId()) {
                    listings.add(new GroupListing(groupId, "", GroupState.EMPTY));
                }
            }
            return listings;
        });
    }

    private static Set<String> lowerCase(List<String> names) {
        if (names == null) {
            return Set.of();
        }
        return names.stream().map(name -> name.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
}
