package dev.cairn.broker.engine.rpc;

/** One decoded RPC frame ({@link EngineRpcCodec}): a request or a response, with who sent it and its call. */
public sealed interface RpcFrame {

    /** The node id of the broker that sent the frame; a request is answered to it. */
    int sender();

    /** The call the frame belongs to, chosen by the requester; a response repeats its request's. */
    long correlationId();

    record Request(int sender, long correlationId, RpcRequest request) implements RpcFrame {
    }

    record Response(int sender, long correlationId, RpcResponse response) implements RpcFrame {
    }
}
