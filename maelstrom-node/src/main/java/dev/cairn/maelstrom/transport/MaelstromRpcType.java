package dev.cairn.maelstrom.transport;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;

/**
 * The Ratis RPC type "Raft over Maelstrom messages" (ratis.md B.2). Ratis loads it by class name from
 * {@code raft.rpc.type} through its no-arg constructor, so {@link #name()} is the class's FQCN; the node's
 * {@link MaelstromTransport} reaches the factory through {@link Parameters} under {@link #TRANSPORT_PARAMETER}.
 */
public final class MaelstromRpcType implements RpcType {
    /** The {@link Parameters} key under which the node passes its {@link MaelstromTransport}. */
    public static final String TRANSPORT_PARAMETER = "cairn.maelstrom.transport";

    @Override
    public String name() {
        return MaelstromRpcType.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new MaelstromServerFactory(parameters.getNonNull(TRANSPORT_PARAMETER, MaelstromTransport.class));
    }

    /** Puts the node's transport into the parameters given to {@code RaftServer.Builder.setParameters}. */
    public static void register(Parameters parameters, MaelstromTransport transport) {
        parameters.put(TRANSPORT_PARAMETER, transport, MaelstromTransport.class);
    }
}
