package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Maelstrom I/O hub (maelstrom.md 2; ratis.md B.2 adapter threading rules 1-5).
 *
 * <ul>
 *   <li>One stdin reader thread ({@link #runReader}) that only parses lines and dispatches them: replies to this
 *       node's own requests complete their futures (on {@code replyExecutor}, never on the reader), everything
 *       else goes to the request handler, which must hand work to its own executors.</li>
 *   <li>One stdout writer thread draining a bounded queue, one JSON object per line, flushed per line. Nothing
 *       else writes to stdout; logs go to stderr (logback.xml).</li>
 *   <li>Outbound requests ({@link #rpc}) carry a fresh {@code msg_id}; the matching {@code in_reply_to}
 *       completes the future. Maelstrom partitions drop messages silently, so every request has a timeout after
 *       which its future fails with {@link RpcTimeoutException} and a late reply is ignored.</li>
 * </ul>
 */
public final class MaelstromIo {
    private static final Logger LOG = LoggerFactory.getLogger(MaelstromIo.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Lines waiting for the stdout writer; a full queue blocks the producer for at most {@link #OUT_OFFER_MS}. */
    public static final int OUT_QUEUE_LINES_MAX = 65_536;
    static final long OUT_OFFER_MS = 1_000;
    /** Outbound requests awaiting a reply; beyond this a new request fails at once. */
    public static final int PENDING_RPCS_MAX = 65_536;

    /** A request to another node got no reply within its timeout (dropped by a partition, or slow). */
    public static final class RpcTimeoutException extends IOException {
        private static final long serialVersionUID = 1L;

        RpcTimeoutException(String message) {
            super(message);
        }
    }

    private final BlockingQueue<String> out = new ArrayBlockingQueue<>(OUT_QUEUE_LINES_MAX);
    private final ConcurrentMap<Long, CompletableFuture<ObjectNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextMsgId = new AtomicLong(1);
    /** msg_ids each incarnation of a node may use before the next one's base (2^40). */
    static final long MSG_IDS_PER_INCARNATION = 1L << 40;
    /** Incarnations numbered apart; ids stay below 2^52, exact in any JSON reader's doubles. */
    static final long INCARNATIONS_APART = 1L << 12;
    private final ScheduledExecutorService timer;
    private final Executor replyExecutor;
    private volatile String nodeId = "";

    /**
     * @param replyExecutor completes outbound futures (so that their continuations never run on the reader)
     */
    public MaelstromIo(Executor replyExecutor) {
        this.replyExecutor = replyExecutor;
        ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(1, daemon("rpc-timeouts"));
        scheduled.setRemoveOnCancelPolicy(true);
        this.timer = scheduled;
    }

    public static ThreadFactory daemon(String name) {
        AtomicLong count = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public String nodeId() {
        return nodeId;
    }

    public void setNodeId(String nodeId) {
        this.nodeId = nodeId;
    }

    public ScheduledExecutorService timer() {
        return timer;
    }

    /** Starts the stdout writer thread. */
    public void startWriter(OutputStream stdout) {
        Writer writer = new OutputStreamWriter(stdout, StandardCharsets.UTF_8);
        Thread thread = new Thread(() -> runWriter(writer), "stdout-writer");
        thread.setDaemon(true);
        thread.start();
    }

    private void runWriter(Writer writer) {
        try {
            while (true) {
                String line = out.take();
                writer.write(line);
                writer.write('\n');
                writer.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.error("stdout closed; the node can no longer answer", e);
        }
    }

    /**
     * Reads stdin until it closes, on the calling thread. {@code handler} receives (src, body) of every message
     * that is not a reply to one of this node's requests; it must not block.
     */
    public void runReader(InputStream stdin, BiConsumer<String, ObjectNode> handler) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode message;
            try {
                message = MAPPER.readTree(line);
            } catch (IOException e) {
                LOG.warn("ignoring a line that is not JSON: {}", line);
                continue;
            }
            JsonNode body = message.get("body");
            if (!(body instanceof ObjectNode) || !message.path("src").isTextual()) {
                LOG.warn("ignoring a message without src or body: {}", line);
                continue;
            }
            onMessage(message.get("src").asText(), (ObjectNode) body, handler);
        }
        LOG.info("stdin closed");
    }

    private void onMessage(String src, ObjectNode body, BiConsumer<String, ObjectNode> handler) {
        JsonNode inReplyTo = body.get("in_reply_to");
        if (inReplyTo != null && inReplyTo.canConvertToLong()) {
            CompletableFuture<ObjectNode> future = pending.remove(inReplyTo.asLong());
            if (future != null) {
                replyExecutor.execute(() -> future.complete(body));
            }
            // A reply nobody waits for any more (it timed out) is dropped.
            return;
        }
        handler.accept(src, body);
    }

    /**
     * The first msg_id of a node process that is the {@code incarnation}-th on its storage (0 for the first): a
     * reply to an earlier incarnation's request cannot match one of this incarnation's requests unless
     * {@value #INCARNATIONS_APART} restarts separate them.
     */
    static long firstMsgId(long incarnation) {
        return Math.floorMod(incarnation, INCARNATIONS_APART) * MSG_IDS_PER_INCARNATION + 1;
    }

    /** Numbers outbound requests from {@code first} on; called before the first {@link #rpc}. */
    void startMsgIdsAt(long first) {
        if (first < 1) {
            throw new IllegalArgumentException("msg_id " + first + " must be positive");
        }
        nextMsgId.set(first);
    }

    /** Queues one message for stdout. */
    public void send(String dest, ObjectNode body) {
        ObjectNode message = MAPPER.createObjectNode().put("src", nodeId).put("dest", dest);
        message.set("body", body);
        String line = message.toString();
        try {
            if (!out.offer(line, OUT_OFFER_MS, TimeUnit.MILLISECONDS)) {
                LOG.error("stdout queue full for {} ms; dropped a message to {}", OUT_OFFER_MS, dest);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Answers {@code request} from {@code dest} with {@code body} (in_reply_to is added here). */
    public void reply(String dest, JsonNode request, ObjectNode body) {
        body.put("in_reply_to", request.path("msg_id").asLong());
        send(dest, body);
    }

    /**
     * Sends {@code body} to {@code dest} with a fresh msg_id and completes with the reply body, or fails with
     * {@link RpcTimeoutException} after {@code timeoutMs}.
     */
    public CompletableFuture<ObjectNode> rpc(String dest, ObjectNode body, long timeoutMs) {
        if (pending.size() >= PENDING_RPCS_MAX) {
            return CompletableFuture.failedFuture(new IOException(PENDING_RPCS_MAX + " requests already pending"));
        }
        long msgId = nextMsgId.getAndIncrement();
        CompletableFuture<ObjectNode> future = new CompletableFuture<>();
        pending.put(msgId, future);
        body.put("msg_id", msgId);
        timer.schedule(() -> {
            if (pending.remove(msgId) != null) {
                future.completeExceptionally(new RpcTimeoutException(body.path("type").asText() + " to " + dest
                        + " unanswered after " + timeoutMs + " ms"));
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
        send(dest, body);
        return future;
    }
}
