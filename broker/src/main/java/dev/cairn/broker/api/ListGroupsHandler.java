package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupListing;
import dev.cairn.broker.group.GroupState;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListGroupsRequest;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.ListGroupsResponse.ListedGroup;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * ListGroups (key 16), versions 0-5: the groups this broker coordinates. Admin asks every broker and merges the
 * answers, so each broker lists only its own groups, as in Kafka. From v4 each group carries its state and a client
 * may filter by state; from v5 each carries its type and a client may filter by type. Filters match Kafka's names
 * ignoring case, and an empty filter matches everything. Cairn's groups are all of Kafka's "classic" type (the
 * JoinGroup/SyncGroup protocol), so a filter naming only other types (consumer, share, streams) lists nothing.
 *
 * <p>Besides the groups in the coordinator's memory, a broker lists the groups it coordinates that have committed
 * offsets in the partition replicas it hosts but no members (state Empty, no protocol type), as Kafka lists a group
 * it loaded from its offsets topic: after a restart, or for consumers that only commit ({@code assign()}). Committed
 * offsets live in each partition's Raft group, so a group whose offsets are only on partitions this broker does not
 * host is missed here; with every partition on every broker (RF equal to the broker count) none is.
 */
public final class ListGroupsHandler implements RequestHandler {
    /** Kafka's name for the JoinGroup/SyncGroup group type, the only one Cairn serves. */
    static final String CLASSIC_GROUP_TYPE = "classic";

    private final GroupCoordinator coordinator;
    private final MetadataService metadata;
    private final Supplier<Collection<Partition>> localReplicas;

    /** Lists only the groups in the coordinator's memory. */
    public ListGroupsHandler(GroupCoordinator coordinator) {
        this(coordinator, null, List::of);
    }

    /**
     * @param localReplicas the partition replicas this broker hosts, whose committed offsets name groups too
     */
    public ListGroupsHandler(GroupCoordinator coordinator, MetadataService metadata,
            Supplier<Collection<Partition>> localReplicas) {
        this.coordinator = coordinator;
        this.metadata = metadata;
        this.localReplicas = localReplicas;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Set<String> states = lowerCase(request.body().get(ListGroupsRequest.STATES_FILTER));
        Set<String> types = lowerCase(request.body().get(ListGroupsRequest.TYPES_FILTER));
        List<Struct> groups = new ArrayList<>();
        if (types.isEmpty() || types.contains(CLASSIC_GROUP_TYPE)) {
            // Kafka lists every group to a principal with DESCRIBE on the cluster, else those it may describe.
            boolean allGroups = context.session().allowedOnCluster(AclOperation.DESCRIBE);
            for (GroupListing listing : listings()) {
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
        }
        return CompletableFuture.completedFuture(new Struct(ListGroupsResponse.SCHEMA)
                .set(ListGroupsResponse.THROTTLE_TIME_MS, 0)
                .set(ListGroupsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(ListGroupsResponse.GROUPS, groups));
    }

    /** The coordinator's groups, then the groups this broker coordinates that only have committed offsets. */
    private List<GroupListing> listings() {
        List<GroupListing> listings = new ArrayList<>(coordinator.listGroups());
        if (metadata == null) {
            return listings;
        }
        Set<String> known = new java.util.HashSet<>();
        listings.forEach(listing -> known.add(listing.groupId()));
        Set<String> committedOnly = new java.util.TreeSet<>();
        for (Partition replica : localReplicas.get()) {
            try {
                committedOnly.addAll(replica.committedGroups());
            } catch (StorageException e) {
                // An offline replica's groups are listed by the brokers that hold it in sync.
            }
        }
        committedOnly.removeAll(known);
        var brokers = metadata.image().liveBrokers();
        for (String groupId : committedOnly) {
            var coordinatorBroker = FindCoordinatorHandler.coordinatorFor(groupId, brokers);
            if (coordinatorBroker != null && coordinatorBroker.nodeId() == metadata.localNodeId()) {
                listings.add(new GroupListing(groupId, "", GroupState.EMPTY));
            }
        }
        return listings;
    }

    private static Set<String> lowerCase(List<String> names) {
        if (names == null) {
            return Set.of();
        }
        return names.stream().map(name -> name.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
}
