package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stdin/stdout hub over in-process pipes (maelstrom.md 2.1): correlation, timeouts, one line per message. */
@Timeout(20)
class MaelstromIoTest {
    private final MaelstromIo io = new MaelstromIo(Executors.newSingleThreadExecutor());
    private final BlockingQueue<ObjectNode> handled = new LinkedBlockingQueue<>();
    private Writer stdin;
    private BufferedReader stdout;
    private Thread reader;

    @BeforeEach
    void start() throws Exception {
        PipedOutputStream toNode = new PipedOutputStream();
        PipedInputStream nodeIn = new PipedInputStream(toNode, 1 << 16);
        PipedOutputStream nodeOut = new PipedOutputStream();
        PipedInputStream fromNode = new PipedInputStream(nodeOut, 1 << 16);
        stdin = new OutputStreamWriter(toNode, StandardCharsets.UTF_8);
        stdout = new BufferedReader(new InputStreamReader(fromNode, StandardCharsets.UTF_8));
        io.setNodeId("n0");
        io.startWriter(nodeOut);
        reader = new Thread(() -> {
            try {
                io.runReader(nodeIn, (src, body) -> handled.add(body.put("from", src)));
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        reader.start();
    }

    @AfterEach
    void stop() throws Exception {
        stdin.close();
        reader.join(TimeUnit.SECONDS.toMillis(5));
    }

    private void feed(String line) throws Exception {
        stdin.write(line + "\n");
        stdin.flush();
    }

    private JsonNode nextLine() throws Exception {
        return MaelstromIo.mapper().readTree(stdout.readLine());
    }

    @Test
    void repliesCompleteTheirRequestAndOtherMessagesReachTheHandler() throws Exception {
        CompletableFuture<ObjectNode> reply = io.rpc("n1", MaelstromIo.mapper().createObjectNode().put("type", "ping"),
                5_000);
        JsonNode sent = nextLine();
        assertEquals("n0", sent.get("src").asText());
        assertEquals("n1", sent.get("dest").asText());
        long msgId = sent.get("body").get("msg_id").asLong();
        feed("not json at all");
        feed("{\"id\":3,\"src\":\"c1\",\"dest\":\"n0\",\"body\":{\"type\":\"send\",\"msg_id\":1}}");
        feed("{\"src\":\"n1\",\"dest\":\"n0\",\"body\":{\"type\":\"pong\",\"in_reply_to\":" + msgId + "}}");
        assertEquals("pong", reply.get(5, TimeUnit.SECONDS).get("type").asText());
        ObjectNode request = handled.poll(5, TimeUnit.SECONDS);
        assertEquals("send", request.get("type").asText());
        assertEquals("c1", request.get("from").asText());
        io.reply("c1", request, MaelstromIo.mapper().createObjectNode().put("type", "send_ok"));
        JsonNode answer = nextLine();
        assertEquals("c1", answer.get("dest").asText());
        assertEquals(1, answer.get("body").get("in_reply_to").asLong());
    }

    @Test
    void anUnansweredRequestTimesOutAndItsLateReplyIsDropped() throws Exception {
        CompletableFuture<ObjectNode> reply = io.rpc("n2", MaelstromIo.mapper().createObjectNode().put("type", "ping"),
                100);
        long msgId = nextLine().get("body").get("msg_id").asLong();
        ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(5, TimeUnit.SECONDS));
        assertInstanceOf(MaelstromIo.RpcTimeoutException.class, e.getCause());
        feed("{\"src\":\"n2\",\"dest\":\"n0\",\"body\":{\"type\":\"pong\",\"in_reply_to\":" + msgId + "}}");
        feed("{\"src\":\"c1\",\"dest\":\"n0\",\"body\":{\"type\":\"poll\",\"msg_id\":2}}");
        // The late pong went nowhere: the next message the handler sees is the poll.
        assertEquals("poll", handled.poll(5, TimeUnit.SECONDS).get("type").asText());
    }
}
