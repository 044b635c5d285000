package dev.cairn.broker.api;

import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.GroupListing;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.ListGroupsResponse.ListedGroup;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ListGroups (key 16), versions 0-2: the groups this broker coordinates. Admin asks every broker and merges the
 * answers, so each broker lists only its own groups, as in Kafka.
 */
public final class ListGroupsHandler implements RequestHandler {
    private final GroupCoordinator coordinator;

    public ListGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> groups = new ArrayList<>();
        for (GroupListing listing : coordinator.listGroups()) {
            groups.add(new Struct(ListedGroup.SCHEMA)
                    .set(ListedGroup.GROUP_ID, listing.groupId())
                    .set(ListedGroup.PROTOCOL_TYPE, listing.protocolType()));
        }
        return CompletableFuture.completedFuture(new Struct(ListGroupsResponse.SCHEMA)
                .set(ListGroupsResponse.THROTTLE_TIME_MS, 0)
                .set(ListGroupsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(ListGroupsResponse.GROUPS, groups));
    }
}
