package dev.cairn.broker.cli;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Metadata as the admin commands read it: the brokers and topics one broker reports. */
final class ClusterView {
    private ClusterView() {
    }

    /** Metadata for {@code topics}, or for every topic when it is null; never creates a topic. */
    static Struct metadata(AdminConnection connection, List<String> topics) throws IOException {
        List<Struct> requested = null;
        if (topics != null) {
            requested = new ArrayList<>();
            for (String topic : topics) {
                requested.add(new Struct(MetadataRequest.MetadataRequestTopic.SCHEMA)
                        .set(MetadataRequest.MetadataRequestTopic.NAME, topic));
            }
        }
        return connection.send(ApiKey.METADATA, new Struct(MetadataRequest.SCHEMA)
                .set(MetadataRequest.TOPICS, requested)
                .set(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION, false));
    }

    /** The brokers in a Metadata response. */
    static List<Struct> brokers(Struct metadata) {
        return metadata.get(MetadataResponse.BROKERS);
    }
}
