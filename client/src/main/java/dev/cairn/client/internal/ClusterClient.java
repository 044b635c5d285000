package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnClosedException;
import dev.cairn.client.CairnException;
import dev.cairn.client.CairnNetworkException;
import dev.cairn.client.internal.ClusterMetadata.PartitionMetadata;
import dev.cairn.client.internal.ClusterMetadata.TopicMetadata;
import dev.cairn.client.internal.ConfigValues.HostPort;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The connections of one client and its view of the cluster. Connections are opened lazily, one per broker, and
 * replaced when they fail; metadata comes from any live connection (a bootstrap address until the first response
 * names the brokers). Thread-safe: the producer's sender, the consumer's thread and reader-thread callbacks share
 * it.
 */
public final class ClusterClient implements AutoCloseable {
    /** Bootstrap connections use negative ids so they never collide with broker node ids. */
    private static final int BOOTSTRAP_NODE_ID_BASE = -1000;
    /**
     * A group coordinator gets a connection of its own (key {@code COORDINATOR_KEY_BASE - nodeId}, as kafka-clients
     * does), so that a JoinGroup the broker parks for a whole rebalance never delays fetches or heartbeats queued
     * behind it on a shared connection.
     */
    private static final int COORDINATOR_KEY_BASE = Integer.MAX_VALUE;
    /** Node ids at or above this are coordinator keys; broker ids stay far below. */
    private static final int COORDINATOR_KEY_MIN = Integer.MAX_VALUE / 2;

    private final List<HostPort> bootstrapServers;
    private final String clientId;
    private final long requestTimeoutMs;
    private final LongSupplier clockMs;
    private final Map<Integer, BrokerConnection> connections = new HashMap<>();
    private volatile ClusterMetadata metadata;
    private boolean closed;

    public ClusterClient(List<HostPort> bootstrapServers, String clientId, long requestTimeoutMs,
                         LongSupplier clockMs) {
        this.bootstrapServers = List.copyOf(bootstrapServers);
        this.clientId = clientId;
        this.requestTimeoutMs = requestTimeoutMs;
        this.clockMs = clockMs;
    }

    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** The newest metadata, or null before the first refresh. */
    public ClusterMetadata metadata() {
        return metadata;
    }

    /** The connection to a broker by node id, opened (and API versions negotiated) if there is none usable. */
    public BrokerConnection connection(int nodeId) {
        HostPort address;
        synchronized (connections) {
            checkOpen();
            BrokerConnection existing = connections.get(nodeId);
            if (existing != null && existing.isUsable()) {
                return existing;
            }
            address = addressOf(nodeId);
        }
        BrokerConnection opened = BrokerConnection.open(address.host(), address.port(), clientId, requestTimeoutMs);
        synchronized (connections) {
            BrokerConnection raced = connections.get(nodeId);
            if (closed || (raced != null && raced.isUsable())) {
                opened.close();
                checkOpen();
                return raced;
            }
            connections.put(nodeId, opened);
            return opened;
        }
    }

    /** The dedicated connection to a broker in its role as group coordinator. */
    public BrokerConnection coordinatorConnection(int nodeId) {
        return connection(COORDINATOR_KEY_BASE - nodeId);
    }

    private HostPort addressOf(int nodeId) {
        if (nodeId >= COORDINATOR_KEY_MIN) {
            return addressOf(COORDINATOR_KEY_BASE - nodeId);
        }
        if (nodeId <= BOOTSTRAP_NODE_ID_BASE) {
            return bootstrapServers.get(BOOTSTRAP_NODE_ID_BASE - nodeId);
        }
        ClusterMetadata current = metadata;
        HostPort address = current == null ? null : current.brokers().get(nodeId);
        if (address == null) {
            throw new CairnNetworkException("no address known for broker " + nodeId, null);
        }
        return address;
    }

    /**
     * A connection to some broker: a usable existing one if any, else each known broker and then each bootstrap
     * address in turn, starting at a random one so that clients spread out. Never a coordinator connection: a broker
     * answers a connection's requests in order, so a Metadata request queued behind a parked JoinGroup would wait
     * out the whole rebalance (and a consumer stuck in that wait could not rejoin in time).
     */
    public BrokerConnection anyConnection() {
        List<Integer> candidates = new ArrayList<>();
        synchronized (connections) {
            checkOpen();
            for (Map.Entry<Integer, BrokerConnection> entry : connections.entrySet()) {
                if (entry.getKey() < COORDINATOR_KEY_MIN && entry.getValue().isUsable()) {
                    return entry.getValue();
                }
            }
            ClusterMetadata current = metadata;
            if (current != null) {
                candidates.addAll(current.brokers().keySet());
            }
        }
        int offset = ThreadLocalRandom.current().nextInt(bootstrapServers.size());
        for (int i = 0; i < bootstrapServers.size(); i++) {
            candidates.add(BOOTSTRAP_NODE_ID_BASE - (offset + i) % bootstrapServers.size());
        }
        CairnException last = null;
        for (int nodeId : candidates) {
            try {
                return connection(nodeId);
            } catch (CairnNetworkException unreachable) {
                last = unreachable;
            }
        }
        throw new CairnNetworkException("no broker reachable (bootstrap " + bootstrapServers + ")", last);
    }

    /**
     * Fetches metadata for the given topics (null = every topic) from any broker and installs it, merging topics
     * already known so that a refresh for one topic does not forget the others.
     */
    public ClusterMetadata refreshMetadata(Collection<String> topics, boolean allowAutoTopicCreation) {
        BrokerConnection connection = anyConnection();
        List<Struct> requested = null;
        if (topics != null) {
            requested = new ArrayList<>();
            for (String topic : topics) {
                requested.add(new Struct(MetadataRequest.MetadataRequestTopic.SCHEMA)
                        .set(MetadataRequest.MetadataRequestTopic.NAME, topic));
            }
        }
        Struct request = new Struct(MetadataRequest.SCHEMA)
                .set(MetadataRequest.TOPICS, requested)
                .set(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION, allowAutoTopicCreation);
        Struct response = BrokerConnection.await(connection.send(ApiKey.METADATA, request, true), requestTimeoutMs,
                "Metadata from " + connection);
        ClusterMetadata parsed = parse(response, topics != null);
        synchronized (connections) {
            metadata = parsed;
        }
        return parsed;
    }

    private ClusterMetadata parse(Struct response, boolean mergeKnownTopics) {
        Map<Integer, HostPort> brokers = new HashMap<>();
        for (Struct broker : response.get(MetadataResponse.BROKERS)) {
            brokers.put(broker.get(MetadataResponse.MetadataResponseBroker.NODE_ID), new HostPort(
                    broker.get(MetadataResponse.MetadataResponseBroker.HOST),
                    broker.get(MetadataResponse.MetadataResponseBroker.PORT)));
        }
        Map<String, TopicMetadata> topics = new HashMap<>();
        ClusterMetadata previous = metadata;
        if (mergeKnownTopics && previous != null) {
            topics.putAll(previous.topics());
        }
        for (Struct topic : response.get(MetadataResponse.TOPICS)) {
            List<PartitionMetadata> partitions = new ArrayList<>();
            for (Struct partition : topic.get(MetadataResponse.MetadataResponseTopic.PARTITIONS)) {
                partitions.add(new PartitionMetadata(
                        partition.get(MetadataResponse.MetadataResponsePartition.PARTITION_INDEX),
                        ErrorCode.forCode(partition.get(MetadataResponse.MetadataResponsePartition.ERROR_CODE)),
                        partition.get(MetadataResponse.MetadataResponsePartition.LEADER_ID),
                        List.copyOf(partition.get(MetadataResponse.MetadataResponsePartition.REPLICA_NODES)),
                        List.copyOf(partition.get(MetadataResponse.MetadataResponsePartition.ISR_NODES))));
            }
            partitions.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            String name = topic.get(MetadataResponse.MetadataResponseTopic.NAME);
            topics.put(name, new TopicMetadata(name,
                    ErrorCode.forCode(topic.get(MetadataResponse.MetadataResponseTopic.ERROR_CODE)),
                    topic.get(MetadataResponse.MetadataResponseTopic.IS_INTERNAL), List.copyOf(partitions)));
        }
        return new ClusterMetadata(Map.copyOf(brokers), response.get(MetadataResponse.CONTROLLER_ID),
                response.get(MetadataResponse.CLUSTER_ID), Map.copyOf(topics), clockMs.getAsLong());
    }

    /** Raises the topic-level error of a metadata answer, if any. */
    public static void checkTopic(ClusterMetadata metadata, String topic) {
        TopicMetadata described = metadata.topics().get(topic);
        if (described == null) {
            throw new CairnApiException(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic " + topic);
        }
        if (described.error() != ErrorCode.NONE) {
            throw new CairnApiException(described.error(), "topic " + topic);
        }
    }

    /** Closes every connection; their pending requests fail. A test hook simulates network drops with it. */
    public void disconnectAll() {
        List<BrokerConnection> open;
        synchronized (connections) {
            open = new ArrayList<>(connections.values());
        }
        open.forEach(BrokerConnection::close);
    }

    private void checkOpen() {
        if (closed) {
            throw new CairnClosedException("client closed");
        }
    }

    @Override
    public void close() {
        synchronized (connections) {
            closed = true;
        }
        disconnectAll();
    }
}
