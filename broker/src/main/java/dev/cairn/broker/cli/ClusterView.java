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

    /**
     * Connects to the controller (the metadata leader), which CreateTopics and DeleteTopics must reach, as the
     * bootstrap broker's Metadata names it.
     */
    static AdminConnection connectToController(AdminOptions admin) throws IOException {
        Struct metadata;
        try (AdminConnection bootstrap = admin.connect()) {
            metadata = metadata(bootstrap, List.of());
        }
        int controllerId = metadata.get(MetadataResponse.CONTROLLER_ID);
        for (Struct broker : brokers(metadata)) {
            if (broker.get(MetadataResponse.MetadataResponseBroker.NODE_ID) == controllerId) {
                return admin.connect(broker.get(MetadataResponse.MetadataResponseBroker.HOST),
                        broker.get(MetadataResponse.MetadataResponseBroker.PORT));
            }
        }
        throw new IOException("the cluster has no controller (ControllerId " + controllerId
                + "): is a majority of raft.voters up?");
    }

    /** The brokers in a Metadata response. */
    static List<Struct> brokers(Struct metadata) {
        return metadata.get(MetadataResponse.BROKERS);
    }
}
