package dev.cairn.broker.api;

import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupListing;
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
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * ListGroups (key 16), versions 0-5: the groups this broker coordinates. Admin asks every broker and merges the
 * answers, so each broker lists only its own groups, as in Kafka. From v4 each group carries its state and a client
 * may filter by state; from v5 each carries its type and a client may filter by type. Filters match Kafka's names
 * ignoring case, and an empty filter matches everything. Cairn's groups are all of Kafka's "classic" type (the
 * JoinGroup/SyncGroup protocol), so a filter naming only other types (consumer, share, streams) lists nothing.
 */
public final class ListGroupsHandler implements RequestHandler {
    /** Kafka's name for the JoinGroup/SyncGroup group type, the only one Cairn serves. */
    static final String CLASSIC_GROUP_TYPE = "classic";

    private final GroupCoordinator coordinator;

    public ListGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Set<String> states = lowerCase(request.body().get(ListGroupsRequest.STATES_FILTER));
        Set<String> types = lowerCase(request.body().get(ListGroupsRequest.TYPES_FILTER));
        List<Struct> groups = new ArrayList<>();
        if (types.isEmpty() || types.contains(CLASSIC_GROUP_TYPE)) {
            // Kafka lists every group to a principal with DESCRIBE on the cluster, else those it may describe.
            boolean allGroups = context.session().allowedOnCluster(AclOperation.DESCRIBE);
            for (GroupListing listing : coordinator.listGroups()) {
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

    private static Set<String> lowerCase(List<String> names) {
        if (names == null) {
            return Set.of();
        }
        return names.stream().map(name -> name.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
}
