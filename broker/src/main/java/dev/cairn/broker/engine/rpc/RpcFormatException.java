package dev.cairn.broker.engine.rpc;

/** An RPC frame that {@link EngineRpcCodec} refuses to decode; {@link EngineRpc} drops it. */
public final class RpcFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public RpcFormatException(String message) {
        super(message);
    }
}
