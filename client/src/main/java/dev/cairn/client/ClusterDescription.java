package dev.cairn.client;

import java.util.List;

/**
 * The cluster: its id, the controller's node id (-1 if none), and its brokers.
 *
 * @param clusterId the cluster id
 * @param controllerId the controller's node id
 * @param brokers the brokers
 */
public record ClusterDescription(String clusterId, int controllerId, List<Node> brokers) {
    /** A broker's node id and address. */
    public record Node(int id, String host, int port) {
    }
}
