package dev.cairn.broker.cli;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.CreatePartitionsResponse;
import dev.cairn.protocol.message.CreateTopicsRequest;
import dev.cairn.protocol.message.CreateTopicsResponse;
import dev.cairn.protocol.message.DeleteTopicsRequest;
import dev.cairn.protocol.message.DeleteTopicsResponse;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.schema.Field;
import dev.cairn.protocol.schema.Struct;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code topics list|describe|create|alter|delete}: everyday topic administration over the Kafka protocol. */
@Command(name = "topics", description = "List, describe, create, alter and delete topics.",
        subcommands = {TopicsCommand.ListTopics.class, TopicsCommand.Describe.class, TopicsCommand.Create.class,
                TopicsCommand.Alter.class, TopicsCommand.Delete.class})
final class TopicsCommand implements Callable<Integer> {
    /** Attempts of a create or delete while the controller moves, and the pause between them. */
    static final int CONTROLLER_ATTEMPTS_MAX = 5;
    static final long CONTROLLER_RETRY_MS = 500;

    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.err);
        return 2;
    }

    @Command(name = "list", description = "Print every topic's name, one per line.")
    static final class ListTopics implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Override
        public Integer call() {
            PrintWriter out = admin.out();
            return AdminCall.run(admin.err(), () -> {
                try (AdminConnection connection = admin.connect()) {
                    for (Struct topic : sortedTopics(ClusterView.metadata(connection, null))) {
                        out.println(topic.get(MetadataResponse.MetadataResponseTopic.NAME));
                    }
                }
                return AdminOptions.EXIT_OK;
            });
        }
    }

    @Command(name = "describe", description = "Print partitions, leaders, replicas and in-sync replicas.")
    static final class Describe implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Option(names = "--topic", paramLabel = "NAME", description = "A topic (repeatable; default: all).")
        List<String> topics;

        @Override
        public Integer call() {
            PrintWriter out = admin.out();
            PrintWriter err = admin.err();
            return AdminCall.run(err, () -> {
                int exit = AdminOptions.EXIT_OK;
                try (AdminConnection connection = admin.connect()) {
                    for (Struct topic : sortedTopics(ClusterView.metadata(connection, topics))) {
                        String name = topic.get(MetadataResponse.MetadataResponseTopic.NAME);
                        ErrorCode error = ErrorCode.forCode(
                                topic.get(MetadataResponse.MetadataResponseTopic.ERROR_CODE));
                        if (error != ErrorCode.NONE) {
                            err.println("cairn: topic " + name + ": " + error);
                            exit = AdminOptions.EXIT_FAILED;
                            continue;
                        }
                        describe(out, name, topic.get(MetadataResponse.MetadataResponseTopic.PARTITIONS));
                    }
                }
                return exit;
            });
        }

        private static void describe(PrintWriter out, String name, List<Struct> partitions) {
            List<Struct> sorted = new ArrayList<>(partitions);
            sorted.sort(Comparator.comparing(p -> p.get(MetadataResponse.MetadataResponsePartition.PARTITION_INDEX)));
            int replicationFactor = sorted.isEmpty() ? 0
                    : sorted.get(0).get(MetadataResponse.MetadataResponsePartition.REPLICA_NODES).size();
            out.println("Topic: " + name + "\tPartitionCount: " + sorted.size() + "\tReplicationFactor: "
                    + replicationFactor);
            for (Struct p : sorted) {
                out.println("\tTopic: " + name
                        + "\tPartition: " + p.get(MetadataResponse.MetadataResponsePartition.PARTITION_INDEX)
                        + "\tLeader: " + p.get(MetadataResponse.MetadataResponsePartition.LEADER_ID)
                        + "\tReplicas: " + join(p.get(MetadataResponse.MetadataResponsePartition.REPLICA_NODES))
                        + "\tIsr: " + join(p.get(MetadataResponse.MetadataResponsePartition.ISR_NODES)));
            }
        }
    }

    @Command(name = "create", description = "Create a topic.")
    static final class Create implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Option(names = "--topic", required = true, paramLabel = "NAME", description = "The topic's name.")
        String topic;

        @Option(names = "--partitions", paramLabel = "N", defaultValue = "-1",
                description = "Partitions (default: the broker's num.partitions).")
        int partitions;

        @Option(names = "--replication-factor", paramLabel = "N", defaultValue = "-1",
                description = "Replicas of each partition (default: the broker's default.replication.factor).")
        short replicationFactor;

        @Option(names = "--config", paramLabel = "KEY=VALUE", description = "A topic config (repeatable), e.g. "
                + "retention.ms=3600000.")
        Map<String, String> configs = Map.of();

        @Override
        public Integer call() {
            return AdminCall.run(admin.err(), () -> {
                List<Struct> configStructs = new ArrayList<>();
                configs.forEach((key, value) -> configStructs.add(
                        new Struct(CreateTopicsRequest.CreatableTopicConfig.SCHEMA)
                                .set(CreateTopicsRequest.CreatableTopicConfig.NAME, key)
                                .set(CreateTopicsRequest.CreatableTopicConfig.VALUE, value)));
                Struct creatable = new Struct(CreateTopicsRequest.CreatableTopic.SCHEMA)
                        .set(CreateTopicsRequest.CreatableTopic.NAME, topic)
                        .set(CreateTopicsRequest.CreatableTopic.NUM_PARTITIONS, partitions)
                        .set(CreateTopicsRequest.CreatableTopic.REPLICATION_FACTOR, replicationFactor)
                        .set(CreateTopicsRequest.CreatableTopic.ASSIGNMENTS, List.of())
                        .set(CreateTopicsRequest.CreatableTopic.CONFIGS, configStructs);
                Struct request = new Struct(CreateTopicsRequest.SCHEMA)
                        .set(CreateTopicsRequest.TOPICS, List.of(creatable))
                        .set(CreateTopicsRequest.TIMEOUT_MS, admin.timeoutMs)
                        .set(CreateTopicsRequest.VALIDATE_ONLY, false);
                Struct response = sendToController(admin, ApiKey.CREATE_TOPICS, request,
                        r -> errors(r.get(CreateTopicsResponse.TOPICS),
                                CreateTopicsResponse.CreatableTopicResult.ERROR_CODE));
                int exit = AdminOptions.EXIT_OK;
                for (Struct result : response.get(CreateTopicsResponse.TOPICS)) {
                    String name = result.get(CreateTopicsResponse.CreatableTopicResult.NAME);
                    ErrorCode error = ErrorCode.forCode(
                            result.get(CreateTopicsResponse.CreatableTopicResult.ERROR_CODE));
                    if (error == ErrorCode.NONE) {
                        admin.out().println("Created topic " + name + ".");
                    } else {
                        String message = result.get(CreateTopicsResponse.CreatableTopicResult.ERROR_MESSAGE);
                        admin.err().println("cairn: cannot create topic " + name + ": " + error
                                + (message == null ? "" : " (" + message + ")"));
                        exit = AdminOptions.EXIT_FAILED;
                    }
                }
                return exit;
            });
        }
    }

    /** {@code kafka-topics --alter --partitions}: CreatePartitions; a topic's partition count can only grow. */
    @Command(name = "alter", description = "Add partitions to a topic (the count can only grow).")
    static final class Alter implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Option(names = "--topic", required = true, paramLabel = "NAME", description = "The topic's name.")
        String topic;

        @Option(names = "--partitions", required = true, paramLabel = "N",
                description = "The new total number of partitions; more than the topic has now.")
        int partitions;

        @Option(names = "--validate-only", description = "Check the change without making it.")
        boolean validateOnly;

        @Override
        public Integer call() {
            return AdminCall.run(admin.err(), () -> {
                Struct growing = new Struct(CreatePartitionsRequest.CreatePartitionsTopic.SCHEMA)
                        .set(CreatePartitionsRequest.CreatePartitionsTopic.NAME, topic)
                        .set(CreatePartitionsRequest.CreatePartitionsTopic.COUNT, partitions)
                        .set(CreatePartitionsRequest.CreatePartitionsTopic.ASSIGNMENTS, null);
                Struct request = new Struct(CreatePartitionsRequest.SCHEMA)
                        .set(CreatePartitionsRequest.TOPICS, List.of(growing))
                        .set(CreatePartitionsRequest.TIMEOUT_MS, admin.timeoutMs)
                        .set(CreatePartitionsRequest.VALIDATE_ONLY, validateOnly);
                Struct response = sendToController(admin, ApiKey.CREATE_PARTITIONS, request,
                        r -> errors(r.get(CreatePartitionsResponse.RESULTS),
                                CreatePartitionsResponse.CreatePartitionsTopicResult.ERROR_CODE));
                int exit = AdminOptions.EXIT_OK;
                for (Struct result : response.get(CreatePartitionsResponse.RESULTS)) {
                    String name = result.get(CreatePartitionsResponse.CreatePartitionsTopicResult.NAME);
                    ErrorCode error = ErrorCode.forCode(
                            result.get(CreatePartitionsResponse.CreatePartitionsTopicResult.ERROR_CODE));
                    if (error == ErrorCode.NONE) {
                        admin.out().println(validateOnly ? "Topic " + name + " can have " + partitions
                                + " partitions (validate only: nothing changed)."
                                : "Topic " + name + " now has " + partitions + " partitions.");
                    } else {
                        String message = result.get(
                                CreatePartitionsResponse.CreatePartitionsTopicResult.ERROR_MESSAGE);
                        admin.err().println("cairn: cannot alter topic " + name + ": " + error
                                + (message == null ? "" : " (" + message + ")"));
                        exit = AdminOptions.EXIT_FAILED;
                    }
                }
                return exit;
            });
        }
    }

    @Command(name = "delete", description = "Delete topics.")
    static final class Delete implements Callable<Integer> {
        @Mixin
        AdminOptions admin;

        @Option(names = "--topic", required = true, paramLabel = "NAME", description = "A topic (repeatable).")
        List<String> topics;

        @Override
        public Integer call() {
            return AdminCall.run(admin.err(), () -> {
                Struct request = new Struct(DeleteTopicsRequest.SCHEMA)
                        .set(DeleteTopicsRequest.TOPIC_NAMES, topics)
                        .set(DeleteTopicsRequest.TIMEOUT_MS, admin.timeoutMs);
                Struct response = sendToController(admin, ApiKey.DELETE_TOPICS, request,
                        r -> errors(r.get(DeleteTopicsResponse.RESPONSES),
                                DeleteTopicsResponse.DeletableTopicResult.ERROR_CODE));
                int exit = AdminOptions.EXIT_OK;
                for (Struct result : response.get(DeleteTopicsResponse.RESPONSES)) {
                    String name = result.get(DeleteTopicsResponse.DeletableTopicResult.NAME);
                    ErrorCode error = ErrorCode.forCode(
                            result.get(DeleteTopicsResponse.DeletableTopicResult.ERROR_CODE));
                    if (error == ErrorCode.NONE) {
                        admin.out().println("Deleted topic " + name + ".");
                    } else {
                        admin.err().println("cairn: cannot delete topic " + name + ": " + error);
                        exit = AdminOptions.EXIT_FAILED;
                    }
                }
                return exit;
            });
        }
    }

    /**
     * Sends a controller request to the controller, asking again (at most {@link #CONTROLLER_ATTEMPTS_MAX} times,
     * {@link #CONTROLLER_RETRY_MS} apart) while every result says NOT_CONTROLLER: the controller moved meanwhile.
     */
    private static Struct sendToController(AdminOptions admin, ApiKey apiKey, Struct request,
            Function<Struct, List<ErrorCode>> errors) throws IOException {
        Struct response = null;
        for (int attempt = 1; attempt <= CONTROLLER_ATTEMPTS_MAX; attempt++) {
            try (AdminConnection controller = ClusterView.connectToController(admin)) {
                response = controller.send(apiKey, request);
            }
            List<ErrorCode> codes = errors.apply(response);
            if (codes.isEmpty() || !codes.stream().allMatch(code -> code == ErrorCode.NOT_CONTROLLER)) {
                return response;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(CONTROLLER_RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the controller", e);
            }
        }
        return response;
    }

    private static List<ErrorCode> errors(List<Struct> results, Field<Short> errorCode) {
        return results.stream().map(result -> ErrorCode.forCode(result.get(errorCode))).toList();
    }

    static List<Struct> sortedTopics(Struct metadata) {
        List<Struct> topics = new ArrayList<>(metadata.get(MetadataResponse.TOPICS));
        topics.sort(Comparator.comparing(t -> t.get(MetadataResponse.MetadataResponseTopic.NAME)));
        return topics;
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
