package dev.cairn.broker.group;

/** A group as ListGroups shows it. */
public record GroupListing(String groupId, String protocolType, GroupState state) {
}
