package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.AlterConfigsRequest;
import dev.cairn.protocol.message.AlterConfigsRequest.AlterConfigsResource;
import dev.cairn.protocol.message.AlterConfigsRequest.AlterableConfig;
import dev.cairn.protocol.message.AlterConfigsResponse;
import dev.cairn.protocol.message.AlterConfigsResponse.AlterConfigsResourceResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * AlterConfigs (key 33), versions 0-2, the call before KIP-339 ({@code Admin.alterConfigs}, older tools and clients
 * such as librdkafka's {@code AlterConfigs}): each resource's configs are replaced by exactly the ones listed, the
 * others going back to their inherited values, as in Kafka. Checked and applied as {@link ConfigAlterations} describes.
 * A resource named twice is answered INVALID_REQUEST each time; over {@link Limits#ALTER_CONFIGS_RESOURCES_MAX}
 * resources, every one is.
 */
public final class AlterConfigsHandler implements RequestHandler {
    private final ConfigAlterations alterations;

    /**
     * @param nodeId this broker's id (a BROKER_LOGGER resource must name it)
     * @param loggers this broker's log levels
     */
    public AlterConfigsHandler(MetadataService metadata, int nodeId, BrokerLoggers loggers) {
        this.alterations = new ConfigAlterations(metadata, nodeId, loggers);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        boolean validateOnly = body.get(AlterConfigsRequest.VALIDATE_ONLY);
        List<Struct> resources = body.get(AlterConfigsRequest.RESOURCES);
        Map<String, Integer> timesNamed = new HashMap<>();
        for (Struct resource : resources) {
            timesNamed.merge(key(resource), 1, Integer::sum);
        }
        List<CompletableFuture<Struct>> answers = new ArrayList<>();
        for (Struct resource : resources) {
            byte type = resource.get(AlterConfigsResource.RESOURCE_TYPE);
            String name = resource.get(AlterConfigsResource.RESOURCE_NAME);
            CompletableFuture<ConfigAlterations.Outcome> outcome;
            if (resources.size() > Limits.ALTER_CONFIGS_RESOURCES_MAX) {
                outcome = CompletableFuture.completedFuture(new ConfigAlterations.Outcome(ErrorCode.INVALID_REQUEST,
                        "a request may alter at most " + Limits.ALTER_CONFIGS_RESOURCES_MAX + " resources"));
            } else if (timesNamed.get(key(resource)) > 1) {
                outcome = CompletableFuture.completedFuture(new ConfigAlterations.Outcome(ErrorCode.INVALID_REQUEST,
                        "Error due to duplicate resources in the request"));
            } else {
                List<ConfigAlterations.Change> changes = new ArrayList<>();
                for (Struct config : resource.get(AlterConfigsResource.CONFIGS)) {
                    changes.add(new ConfigAlterations.Change(config.get(AlterableConfig.NAME),
                            ConfigAlterations.OP_SET, config.get(AlterableConfig.VALUE)));
                }
                outcome = alterations.alter(context.session(), type, name, changes, true, validateOnly);
            }
            answers.add(outcome.thenApply(result -> new Struct(AlterConfigsResourceResponse.SCHEMA)
                    .set(AlterConfigsResourceResponse.ERROR_CODE, result.error().code())
                    .set(AlterConfigsResourceResponse.ERROR_MESSAGE, result.message())
                    .set(AlterConfigsResourceResponse.RESOURCE_TYPE, type)
                    .set(AlterConfigsResourceResponse.RESOURCE_NAME, name)));
        }
        return ProduceHandler.allOf(answers).thenApply(list -> new Struct(AlterConfigsResponse.SCHEMA)
                .set(AlterConfigsResponse.THROTTLE_TIME_MS, 0)
                .set(AlterConfigsResponse.RESPONSES, list));
    }

    private static String key(Struct resource) {
        return resource.get(AlterConfigsResource.RESOURCE_TYPE) + "/"
                + resource.get(AlterConfigsResource.RESOURCE_NAME);
    }
}
