package dev.cairn.maelstrom.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Maelstrom client ({@code maelstrom.client}): a {@code cN} id on the network, bound to one node, numbering
 * its {@code msg_id}s from 1 and waiting at most the RPC timeout for the reply with the matching
 * {@code in_reply_to}.
 */
final class RpcClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RpcClient.class);

    /** Bound on outstanding RPCs of one client; Maelstrom clients issue one at a time. */
    static final int PENDING_RPCS_MAX = 16;

    /** The outcome of one RPC. */
    sealed interface Reply {
        /** A non-error reply body. */
        record Ok(ObjectNode body) implements Reply {
        }

        /** An {@code error} reply. */
        record Error(int code, String text) implements Reply {
        }

        /** No reply within the timeout (Maelstrom's {@code :net-timeout}). */
        record Timeout() implements Reply {
        }
    }

    private final Network network;
    private final String nodeId;
    private final String clientId;
    private final long timeoutMs;
    private final Map<Long, CompletableFuture<ObjectNode>> pending = new ConcurrentHashMap<>();
    private long nextMsgId = 1;

    RpcClient(Network network, String nodeId, long timeoutMs) {
        this.network = network;
        this.nodeId = nodeId;
        this.timeoutMs = timeoutMs;
        this.clientId = network.openClient(this::onMessage);
    }

    String clientId() {
        return clientId;
    }

    String nodeId() {
        return nodeId;
    }

    private void onMessage(String src, ObjectNode body) {
        JsonNode inReplyTo = body.get("in_reply_to");
        CompletableFuture<ObjectNode> waiter = inReplyTo != null && inReplyTo.canConvertToLong()
            ? pending.remove(inReplyTo.asLong()) : null;
        if (waiter == null) {
            LOG.warn("{} got a message from {} that answers no pending request: {}", clientId, src, body);
            return;
        }
        waiter.complete(body);
    }

    /** Sends {@code body} (a msg_id is added) and waits for the reply. */
    Reply call(ObjectNode body) throws InterruptedException {
        long msgId = nextMsgId++;
        if (pending.size() >= PENDING_RPCS_MAX) {
            throw new IllegalStateException(clientId + " exceeds PENDING_RPCS_MAX=" + PENDING_RPCS_MAX);
        }
        CompletableFuture<ObjectNode> reply = new CompletableFuture<>();
        pending.put(msgId, reply);
        ObjectNode request = body.deepCopy();
        request.put("msg_id", msgId);
        network.sendFromClient(clientId, nodeId, request);
        ObjectNode replyBody;
        try {
            replyBody = reply.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.remove(msgId);
            return new Reply.Timeout();
        } catch (ExecutionException e) {
            throw new IllegalStateException("reply future failed", e);
        }
        if ("error".equals(replyBody.path("type").asText())) {
            JsonNode code = replyBody.get("code");
            int errorCode = code != null && code.canConvertToInt() ? code.asInt() : -1;
            return new Reply.Error(errorCode, replyBody.path("text").asText(""));
        }
        return new Reply.Ok(replyBody);
    }

    @Override
    public void close() {
        network.closeClient(clientId);
    }
}
