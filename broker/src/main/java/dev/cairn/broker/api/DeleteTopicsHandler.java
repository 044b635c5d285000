package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DeleteTopicsRequest;
import dev.cairn.protocol.message.DeleteTopicsResponse;
import dev.cairn.protocol.message.DeleteTopicsResponse.DeletableTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteTopics (key 20), version 1, served by the controller like CreateTopics: each named topic is removed from
 * the metadata group, and the answer comes once that removal is committed. Brokers then drop their partition
 * groups as they apply it; the answer does not wait for that, because a topic re-created under the same name
 * gets a new topic id and so new partition groups that cannot meet the old ones' state.
 */
public final class DeleteTopicsHandler implements RequestHandler {
    private final MetadataService metadata;

    public DeleteTopicsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<String> names = request.body().get(DeleteTopicsRequest.TOPIC_NAMES);
        Map<String, Integer> timesNamed = new HashMap<>();
        for (String name : names) {
            timesNamed.merge(name, 1, Integer::sum);
        }
        boolean isController = metadata.controllerId() == metadata.localNodeId();
        List<CompletableFuture<Struct>> results = new ArrayList<>();
        Set<String> answered = new HashSet<>();
        for (String name : names) {
            if (!answered.add(name)) {
                continue;
            }
            if (!isController) {
                results.add(result(name, ErrorCode.NOT_CONTROLLER));
            } else if (!context.session().allowedOnTopic(AclOperation.DELETE, name)) {
                results.add(result(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
            } else if (timesNamed.get(name) > 1) {
                // Kafka refuses a name given twice rather than delete it "twice".
                results.add(result(name, ErrorCode.INVALID_REQUEST));
            } else if (!metadata.image().topics().containsKey(name)) {
                results.add(result(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
            } else {
                results.add(metadata.submit(new MetadataCommand.DeleteTopic(name)).thenApply(deleted ->
                        resultStruct(name, deleted instanceof MetadataResult.Rejected rejected ? rejected.error()
                                : deleted instanceof MetadataResult.Ok ? ErrorCode.NONE
                                : ErrorCode.UNKNOWN_SERVER_ERROR)));
            }
        }
        return ProduceHandler.allOf(results).thenApply(list -> new Struct(DeleteTopicsResponse.SCHEMA)
                .set(DeleteTopicsResponse.THROTTLE_TIME_MS, 0)
                .set(DeleteTopicsResponse.RESPONSES, list));
    }

    private static CompletableFuture<Struct> result(String name, ErrorCode error) {
        return CompletableFuture.completedFuture(resultStruct(name, error));
    }

    private static Struct resultStruct(String name, ErrorCode error) {
        return new Struct(DeletableTopicResult.SCHEMA)
                .set(DeletableTopicResult.NAME, name)
                .set(DeletableTopicResult.ERROR_CODE, error.code());
    }
}
