package dev.cairn.broker.cluster;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A registered broker: its node id, the Kafka address clients use by default (its first listener's), its Raft
 * (gRPC) address, and the advertised address of each of its Kafka listeners by name. A registration from before
 * brokers announced their listeners has none: its one address then serves every listener. {@code engineAddress} is
 * the host:port where the broker's Cairn Raft engine takes frames from its peers, or null when the broker does not
 * run the engine (or registered before brokers announced it).
 */
public record BrokerInfo(int nodeId, String host, int port, String raftAddress, List<Endpoint> endpoints,
        String engineAddress) {

    /** One Kafka listener's advertised address; names compare as Kafka's do, ignoring case. */
    public record Endpoint(String listener, String host, int port) {
        public Endpoint {
            listener = listener.toUpperCase(Locale.ROOT);
        }
    }

    public BrokerInfo {
        endpoints = List.copyOf(endpoints);
    }

    /** A broker that does not run the Cairn Raft engine. */
    public BrokerInfo(int nodeId, String host, int port, String raftAddress, List<Endpoint> endpoints) {
        this(nodeId, host, port, raftAddress, endpoints, null);
    }

    /** A broker with one listener whose name is not recorded, without the Cairn Raft engine. */
    public BrokerInfo(int nodeId, String host, int port, String raftAddress) {
        this(nodeId, host, port, raftAddress, List.of());
    }

    /** This broker with {@code newEngineAddress} (null: no engine). */
    BrokerInfo withEngineAddress(String newEngineAddress) {
        return new BrokerInfo(nodeId, host, port, raftAddress, endpoints, newEngineAddress);
    }

    /**
     * Where clients on {@code listener} reach this broker: that listener's endpoint, empty when the broker has no
     * listener of that name. A null name (a broker with one listener) or a broker that announced no listeners
     * gets the default address.
     */
    public Optional<Endpoint> endpoint(String listener) {
        if (listener == null || endpoints.isEmpty()) {
            return Optional.of(new Endpoint(listener == null ? "" : listener, host, port));
        }
        String name = listener.toUpperCase(Locale.ROOT);
        return endpoints.stream().filter(endpoint -> endpoint.listener().equals(name)).findFirst();
    }
}
