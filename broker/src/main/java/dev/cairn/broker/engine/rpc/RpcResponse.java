package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.partition.Result;

/** A leader's answer to an {@link RpcRequest}: a {@link Result}, or for a leadership transfer whether it happened. */
public sealed interface RpcResponse {

    /** The answer to a submit or a read. */
    record Answered(Result result) implements RpcResponse {
    }

    /** The answer to a leadership transfer: true when the target broker leads the group. */
    record Transferred(boolean transferred) implements RpcResponse {
    }
}
