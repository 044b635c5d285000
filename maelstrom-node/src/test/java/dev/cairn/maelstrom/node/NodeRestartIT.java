package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node killed with SIGKILL and started again on the same {@code --storage-dir} comes back with what it
 * acknowledged: Ratis replays its Raft log into the in-memory partition log and offset store (snapshots are off).
 * One node, so the restarted process's log is the only copy: nothing could be re-fetched from a peer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeRestartIT {
    private static final Path LAUNCHER = Path.of("target", "cairn-maelstrom-node").toAbsolutePath();
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Per reply; the node answers every client request within 3.5 s (NodeConfig.clientDeadlineMs). */
    private static final long REPLY_WAIT_MS = 15_000;
    /** How long the restarted node may take to replay and lead again. */
    private static final long RECOVERY_WAIT_MS = 30_000;
    private static final int SENDS = 20;

    @TempDir
    Path storage;

    /** One node process speaking Maelstrom's protocol over its stdin and stdout. */
    private static final class Node implements AutoCloseable {
        private final Process process;
        private final OutputStream in;
        private final BlockingQueue<JsonNode> out = new LinkedBlockingQueue<>();
        private int msgId;

        Node(Path storage, Path stderr) throws IOException {
            ProcessBuilder builder = new ProcessBuilder(LAUNCHER.toString(), "--storage-dir", storage.toString());
            builder.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
            this.process = builder.start();
            this.in = process.getOutputStream();
            Thread reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        out.add(MAPPER.readTree(line));
                    }
                } catch (IOException e) {
                    // the process was killed
                }
            }, "node-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /** Sends {@code body} from client c1 and returns the reply's body. */
        JsonNode call(ObjectNode body) throws IOException, InterruptedException {
            int id = ++msgId;
            body.put("msg_id", id);
            ObjectNode message = MAPPER.createObjectNode().put("src", "c1").put("dest", "n0");
            message.set("body", body);
            in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPLY_WAIT_MS);
            while (System.nanoTime() < deadline) {
                JsonNode reply = out.poll(100, TimeUnit.MILLISECONDS);
                if (reply != null && reply.path("body").path("in_reply_to").asInt() == id) {
                    return reply.path("body");
                }
            }
            throw new AssertionError("no reply to " + body + " within " + REPLY_WAIT_MS + " ms");
        }

        JsonNode init() throws IOException, InterruptedException {
            ObjectNode init = MAPPER.createObjectNode().put("type", "init").put("node_id", "n0");
            init.putArray("node_ids").add("n0");
            return call(init);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();   // SIGKILL, as Maelstrom and the fault wrapper do
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "node process did not end");
        }
    }

    private static ObjectNode body(String type) {
        return MAPPER.createObjectNode().put("type", type);
    }

    @Test
    void aKilledNodeRestartedOnItsStorageKeepsItsLogAndCommittedOffsets() throws Exception {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is built by mvn package");
        Path stderr = Files.createDirectories(Path.of("target", "node-restart-it")).resolve("node.log");
        List<Long> offsets = new ArrayList<>();
        try (Node first = new Node(storage, stderr)) {
            assertEquals("init_ok", first.init().path("type").asText());
            for (int i = 0; i < SENDS; i++) {
                JsonNode reply = first.call(body("send").put("key", "7").put("msg", 1000 + i));
                if ("send_ok".equals(reply.path("type").asText())) {
                    offsets.add(reply.path("offset").asLong());
                }
            }
            assertTrue(offsets.size() >= SENDS / 2, "most sends succeed on one node: " + offsets);
            ObjectNode commit = body("commit_offsets");
            commit.putObject("offsets").put("7", offsets.get(offsets.size() / 2));
            assertEquals("commit_offsets_ok", first.call(commit).path("type").asText());
        }   // killed here

        try (Node second = new Node(storage, stderr)) {
            assertEquals("init_ok", second.init().path("type").asText());
            assertEquals("1", Files.readString(storage.resolve("n0").resolve(NodeStorage.INCARNATION_FILE)));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECOVERY_WAIT_MS);
            List<Long> polled = List.of();
            JsonNode committed = null;
            while (System.nanoTime() < deadline && (!polled.containsAll(offsets) || committed == null)) {
                ObjectNode poll = body("poll");
                poll.putObject("offsets").put("7", 0);
                List<Long> seen = new ArrayList<>();
                second.call(poll).path("msgs").path("7").forEach(pair -> seen.add(pair.get(0).asLong()));
                polled = seen;
                ObjectNode list = body("list_committed_offsets");
                list.putArray("keys").add("7");
                JsonNode listed = second.call(list).path("offsets").get("7");
                committed = listed;
                if (!polled.containsAll(offsets) || committed == null) {
                    Thread.sleep(100);   // poll interval while the restarted node replays its log
                }
            }
            assertTrue(polled.containsAll(offsets), "every acknowledged send is back, at its offset: acknowledged "
                    + offsets + ", polled " + polled);
            assertNotNull(committed, "the committed offset is back");
            assertEquals(offsets.get(offsets.size() / 2), committed.asLong());
        }
    }
}
