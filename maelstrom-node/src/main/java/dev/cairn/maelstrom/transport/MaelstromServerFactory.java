package dev.cairn.maelstrom.transport;

import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;

/** Creates the server-side RPC of the Maelstrom transport; the log appender is Ratis's default one. */
final class MaelstromServerFactory implements ServerFactory {
    private final MaelstromTransport transport;

    MaelstromServerFactory(MaelstromTransport transport) {
        this.transport = transport;
    }

    @Override
    public RpcType getRpcType() {
        return new MaelstromRpcType();
    }

    @Override
    public RaftServerRpc newRaftServerRpc(RaftServer server) {
        return transport.bind(server);
    }
}
