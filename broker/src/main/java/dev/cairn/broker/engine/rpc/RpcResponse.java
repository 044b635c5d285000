package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.partition.Result;
import java.nio.ByteBuffer;

/** A leader's answer to an {@link RpcRequest}: a {@link Result}, batches, or whether a leadership transfer happened. */
public sealed interface RpcResponse {

    /** The answer to a submit or a read. */
    record Answered(Result result) implements RpcResponse {
    }

    /** The answer to a read of committed batches: whole batches as the log holds them (none: nothing there yet). */
    record Batches(ByteBuffer batches) implements RpcResponse {
    }

    /** The answer to a leadership transfer: true when the target broker leads the group. */
    record Transferred(boolean transferred) implements RpcResponse {
    }
}
