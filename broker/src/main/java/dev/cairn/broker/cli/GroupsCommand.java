package dev.cairn.broker.cli;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.DescribeGroupsRequest;
import dev.cairn.protocol.message.DescribeGroupsResponse;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroup;
import dev.cairn.protocol.message.DescribeGroupsResponse.DescribedGroupMember;
import dev.cairn.protocol.message.FindCoordinatorRequest;
import dev.cairn.protocol.message.FindCoordinatorResponse;
import dev.cairn.protocol.message.ListGroupsRequest;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code groups list|describe}: consumer groups as their coordinators see them. Each broker knows only the groups it
 * coordinates, so {@code list} asks every broker and {@code describe} asks the group's coordinator.
 */
@Command(name = "groups", description = "List and describe consumer groups.",
        subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.Describe.class})
final class GroupsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.err);
        return 2;
    }

    @Command(name = "list", description = "Print every consumer group's id, one per line.")
    static final class ListGroups implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Override
        public Integer call() {
            PrintWriter out = admin.out();
            PrintWriter err = admin.err();
            return AdminCall.run(err, () -> {
                List<Struct> brokers;
                try (AdminConnection connection = admin.connect()) {
                    brokers = ClusterView.brokers(ClusterView.metadata(connection, List.of()));
                }
                TreeSet<String> groups = new TreeSet<>();
                int exit = AdminOptions.EXIT_OK;
                for (Struct broker : brokers) {
                    String host = broker.get(MetadataResponse.MetadataResponseBroker.HOST);
                    int port = broker.get(MetadataResponse.MetadataResponseBroker.PORT);
                    try (AdminConnection connection = admin.connect(host, port)) {
                        Struct response = connection.send(ApiKey.LIST_GROUPS, new Struct(ListGroupsRequest.SCHEMA));
                        ErrorCode error = ErrorCode.forCode(response.get(ListGroupsResponse.ERROR_CODE));
                        if (error != ErrorCode.NONE) {
                            err.println("cairn: broker " + host + ":" + port + " cannot list groups: " + error);
                            exit = AdminOptions.EXIT_FAILED;
                            continue;
                        }
                        for (Struct group : response.get(ListGroupsResponse.GROUPS)) {
                            groups.add(group.get(ListGroupsResponse.ListedGroup.GROUP_ID));
                        }
                    } catch (IOException e) {
                        err.println("cairn: broker " + host + ":" + port + " is unreachable: " + e.getMessage());
                        exit = AdminOptions.EXIT_FAILED;
                    }
                }
                groups.forEach(out::println);
                return exit;
            });
        }
    }

    @Command(name = "describe", description = "Print a group's state, protocol and members, and its committed "
            + "offsets with their lag.")
    static final class Describe implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Option(names = "--group", required = true, paramLabel = "ID", description = "The group's id.")
        String groupId;

        @Override
        public Integer call() {
            PrintWriter out = admin.out();
            PrintWriter err = admin.err();
            return AdminCall.run(err, () -> {
                Struct coordinator;
                try (AdminConnection connection = admin.connect()) {
                    coordinator = connection.send(ApiKey.FIND_COORDINATOR, new Struct(FindCoordinatorRequest.SCHEMA)
                            .set(FindCoordinatorRequest.KEY, groupId)
                            .set(FindCoordinatorRequest.KEY_TYPE, (byte) 0));
                }
                ErrorCode error = ErrorCode.forCode(coordinator.get(FindCoordinatorResponse.ERROR_CODE));
                if (error != ErrorCode.NONE) {
                    err.println("cairn: no coordinator for group " + groupId + ": " + error);
                    return AdminOptions.EXIT_FAILED;
                }
                try (AdminConnection connection = admin.connect(coordinator.get(FindCoordinatorResponse.HOST),
                        coordinator.get(FindCoordinatorResponse.PORT))) {
                    Struct response = connection.send(ApiKey.DESCRIBE_GROUPS,
                            new Struct(DescribeGroupsRequest.SCHEMA).set(DescribeGroupsRequest.GROUPS, List.of(groupId))
                                    .set(DescribeGroupsRequest.INCLUDE_AUTHORIZED_OPERATIONS, false));
                    int exit = printGroup(response, coordinator, out, err);
                    if (exit == AdminOptions.EXIT_OK
                            && !GroupOffsetsView.print(admin, connection, groupId, out, err)) {
                        exit = AdminOptions.EXIT_FAILED;
                    }
                    return exit;
                }
            });
        }

        private int printGroup(Struct response, Struct coordinator, PrintWriter out, PrintWriter err) {
            int exit = AdminOptions.EXIT_OK;
            for (Struct group : response.get(DescribeGroupsResponse.GROUPS)) {
                ErrorCode groupError = ErrorCode.forCode(group.get(DescribedGroup.ERROR_CODE));
                if (groupError != ErrorCode.NONE) {
                    err.println("cairn: cannot describe group " + groupId + ": " + groupError);
                    exit = AdminOptions.EXIT_FAILED;
                    continue;
                }
                List<Struct> members = group.get(DescribedGroup.MEMBERS);
                out.println("Group: " + group.get(DescribedGroup.GROUP_ID)
                        + "\tState: " + group.get(DescribedGroup.GROUP_STATE)
                        + "\tProtocolType: " + group.get(DescribedGroup.PROTOCOL_TYPE)
                        + "\tProtocol: " + group.get(DescribedGroup.PROTOCOL_DATA)
                        + "\tMembers: " + members.size()
                        + "\tCoordinator: " + coordinator.get(FindCoordinatorResponse.NODE_ID));
                for (Struct member : members) {
                    out.println("\tMember: " + member.get(DescribedGroupMember.MEMBER_ID)
                            + "\tClientId: " + member.get(DescribedGroupMember.CLIENT_ID)
                            + "\tHost: " + member.get(DescribedGroupMember.CLIENT_HOST));
                }
            }
            return exit;
        }
    }
}
