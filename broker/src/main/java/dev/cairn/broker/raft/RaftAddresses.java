package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeer;

/**
 * Where each broker's Raft server is reached: the voters' addresses as raft.voters gives them, this broker's own, and,
 * for a broker that joined the cluster later (not in this broker's raft.voters), the address it registered with.
 */
final class RaftAddresses {
    private final Map<Integer, String> configured;
    private final Supplier<MetadataImage> images;

    /**
     * @param configured raft.voters' addresses by node id, with this broker's own
     * @param images the metadata, whose registered brokers name the addresses of those that joined later
     */
    RaftAddresses(Map<Integer, String> configured, Supplier<MetadataImage> images) {
        this.configured = Map.copyOf(configured);
        this.images = images;
    }

    /** The Raft peers of these node ids; a node with no known address is a bug or a stale image, thrown. */
    List<RaftPeer> peers(List<Integer> nodeIds) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int id : nodeIds) {
            peers.add(RaftHost.peer(Integer.toString(id), address(id)));
        }
        return peers;
    }

    private String address(int nodeId) {
        String address = configured.get(nodeId);
        if (address != null) {
            return address;
        }
        BrokerInfo registered = images.get().brokers().get(nodeId);
        if (registered == null) {
            throw new IllegalStateException("node " + nodeId + " has no Raft address: it is not in raft.voters and "
                    + "has not registered");
        }
        return registered.raftAddress();
    }
}
