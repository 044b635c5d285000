package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The front shared by the controller's per-topic admin requests (CreateTopics, CreatePartitions): one answer per
 * distinct topic name, in request order. Any broker but the controller answers NOT_CONTROLLER, so that Admin
 * refreshes and retries; a name given twice is answered once, with INVALID_REQUEST, as Kafka does; every other topic
 * goes to the request's own handling.
 */
final class ControllerTopicRequests {
    /** Builds a topic's result of the request's response schema. */
    interface TopicResult {
        CompletableFuture<Struct> of(String name, ErrorCode error, String message);
    }

    private ControllerTopicRequests() {
    }

    static List<CompletableFuture<Struct>> answerEach(MetadataService metadata, List<Struct> topics,
            Function<Struct, String> nameOf, Function<String, String> duplicateMessage, TopicResult result,
            java.util.function.Predicate<String> authorized, Function<Struct, CompletableFuture<Struct>> handle) {
        Map<String, Integer> timesNamed = new HashMap<>();
        for (Struct topic : topics) {
            timesNamed.merge(nameOf.apply(topic), 1, Integer::sum);
        }
        int controllerId = metadata.controllerId();
        boolean isController = controllerId == metadata.localNodeId();
        List<CompletableFuture<Struct>> results = new ArrayList<>();
        Set<String> answered = new HashSet<>();
        for (Struct topic : topics) {
            String name = nameOf.apply(topic);
            if (!answered.add(name)) {
                continue;
            }
            if (!isController) {
                results.add(result.of(name, ErrorCode.NOT_CONTROLLER, "this broker is not the controller; the "
                        + "controller is " + (controllerId < 0 ? "not elected yet" : "node " + controllerId)));
            } else if (!authorized.test(name)) {
                results.add(result.of(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."));
            } else if (timesNamed.get(name) > 1) {
                results.add(result.of(name, ErrorCode.INVALID_REQUEST, duplicateMessage.apply(name)));
            } else {
                results.add(handle.apply(topic));
            }
        }
        return results;
    }
}
