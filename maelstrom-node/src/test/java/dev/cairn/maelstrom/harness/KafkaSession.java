package dev.cairn.maelstrom.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * One open kafka client of one Jepsen process, as Maelstrom's {@code maelstrom.workload.kafka/Client}: an
 * {@link RpcClient} bound to a node plus the local map from assigned key to the next offset to poll. It turns
 * each workload operation into its RPCs and returns the completion to record.
 */
final class KafkaSession implements AutoCloseable {

    private static final Set<String> ENVELOPE_FIELDS = Set.of("type", "in_reply_to", "msg_id");

    private final int process;
    private final RpcClient rpc;
    private final LongSupplier clockNs;
    private Map<String, Long> offsets = new TreeMap<>();

    KafkaSession(int process, RpcClient rpc, LongSupplier clockNs) {
        this.process = process;
        this.rpc = rpc;
        this.clockNs = clockNs;
    }

    int process() {
        return process;
    }

    private KafkaOp done(OpType type, OpFn f, OpValue value, String error) {
        return new KafkaOp(0, process, type, f, clockNs.getAsLong(), value, error);
    }

    /** Thrown when a reply breaks the closed schema; Maelstrom records such an op as a crashed info. */
    private static final class MalformedReply extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedReply(String message) {
            super(message);
        }
    }

    /** Maps a failed RPC to the completion: definite errors fail, everything else is info unless idempotent. */
    private KafkaOp failed(OpFn f, OpValue value, RpcClient.Reply reply, boolean idempotent) {
        if (reply instanceof RpcClient.Reply.Error error) {
            boolean definite = ErrorCodes.isDefinite(error.code()) || idempotent;
            return done(definite ? OpType.FAIL : OpType.INFO, f, value, "code " + error.code() + ": " + error.text());
        }
        return done(idempotent ? OpType.FAIL : OpType.INFO, f, value, "net-timeout");
    }

    /** Checks a reply body against the closed schema: the documented fields, in_reply_to and msg_id only. */
    private static ObjectNode expect(ObjectNode body, String type, Set<String> fields) throws MalformedReply {
        if (!type.equals(body.path("type").asText())) {
            throw new MalformedReply("expected type " + type + ": " + body);
        }
        if (!body.path("in_reply_to").isIntegralNumber()
                || body.has("msg_id") && !body.get("msg_id").isIntegralNumber()) {
            throw new MalformedReply("in_reply_to/msg_id must be integers: " + body);
        }
        for (Map.Entry<String, JsonNode> field : body.properties()) {
            String name = field.getKey();
            if (!ENVELOPE_FIELDS.contains(name) && !fields.contains(name)) {
                throw new MalformedReply("unexpected field " + name + ": " + body);
            }
        }
        for (String field : fields) {
            if (!body.has(field)) {
                throw new MalformedReply("missing field " + field + ": " + body);
            }
        }
        return body;
    }

    private static Map<String, Long> offsetMap(JsonNode node) throws MalformedReply {
        if (!node.isObject()) {
            throw new MalformedReply("offsets must be an object: " + node);
        }
        Map<String, Long> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            if (!entry.getValue().isIntegralNumber()) {
                throw new MalformedReply("offset must be an integer: " + node);
            }
            result.put(entry.getKey(), entry.getValue().asLong());
        }
        return result;
    }

    /** {@code :assign}: list_committed_offsets unless seeking to the beginning; idempotent, so errors fail. */
    KafkaOp assign(OpValue.Assign value) throws InterruptedException {
        Map<String, Long> next = new TreeMap<>();
        if (value.seekToBeginning()) {
            value.keys().forEach(key -> next.put(key, 0L));
            offsets = next;
            return done(OpType.OK, OpFn.ASSIGN, value, null);
        }
        ObjectNode request = Json.MAPPER.createObjectNode().put("type", "list_committed_offsets");
        ArrayNode keys = request.putArray("keys");
        value.keys().forEach(keys::add);
        RpcClient.Reply reply = rpc.call(request);
        if (!(reply instanceof RpcClient.Reply.Ok ok)) {
            return failed(OpFn.ASSIGN, value, reply, true);
        }
        try {
            Map<String, Long> committed =
                offsetMap(expect(ok.body(), "list_committed_offsets_ok", Set.of("offsets")).get("offsets"));
            for (String key : value.keys()) {
                next.put(key, offsets.getOrDefault(key, committed.getOrDefault(key, 0L)));
            }
        } catch (MalformedReply e) {
            return done(OpType.INFO, OpFn.ASSIGN, value, "malformed RPC response: " + e.getMessage());
        }
        offsets = next;
        return done(OpType.OK, OpFn.ASSIGN, value, null);
    }

    /** {@code :send}: one send RPC. */
    KafkaOp send(OpValue.Send value) throws InterruptedException {
        ObjectNode request = Json.MAPPER.createObjectNode().put("type", "send").put("key", value.key())
            .put("msg", value.msg());
        RpcClient.Reply reply = rpc.call(request);
        if (!(reply instanceof RpcClient.Reply.Ok ok)) {
            return failed(OpFn.SEND, value, reply, false);
        }
        try {
            JsonNode offset = expect(ok.body(), "send_ok", Set.of("offset")).get("offset");
            if (!offset.isIntegralNumber()) {
                throw new MalformedReply("offset must be an integer: " + ok.body());
            }
            return done(OpType.OK, OpFn.SEND, new OpValue.Send(value.key(), value.msg(), offset.asLong()), null);
        } catch (MalformedReply e) {
            return done(OpType.INFO, OpFn.SEND, value, "malformed RPC response: " + e.getMessage());
        }
    }

    private static Map<String, List<OffsetMsg>> pollMsgs(ObjectNode body) throws MalformedReply {
        JsonNode msgs = expect(body, "poll_ok", Set.of("msgs")).get("msgs");
        if (!msgs.isObject()) {
            throw new MalformedReply("msgs must be an object: " + body);
        }
        Map<String, List<OffsetMsg>> polled = new TreeMap<>();
        for (Map.Entry<String, JsonNode> entry : msgs.properties()) {
            if (!entry.getValue().isArray()) {
                throw new MalformedReply("msgs values must be arrays: " + body);
            }
            List<OffsetMsg> pairs = new ArrayList<>();
            for (JsonNode pair : entry.getValue()) {
                if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isIntegralNumber()
                        || !pair.get(1).isIntegralNumber()) {
                    throw new MalformedReply("each msg must be [offset, msg] with the integers we sent: " + body);
                }
                pairs.add(new OffsetMsg(pair.get(0).asLong(), pair.get(1).asLong()));
            }
            polled.put(entry.getKey(), List.copyOf(pairs));
        }
        return polled;
    }

    /**
     * {@code :poll}: one poll RPC from the local offsets, which then advance to max polled offset + 1 per key;
     * if anything was polled, commit_offsets with the highest polled offset per key. Ok only if both succeed.
     */
    KafkaOp poll() throws InterruptedException {
        OpValue.Poll invoked = new OpValue.Poll(null);
        ObjectNode request = Json.MAPPER.createObjectNode().put("type", "poll");
        ObjectNode requestOffsets = request.putObject("offsets");
        offsets.forEach(requestOffsets::put);
        RpcClient.Reply reply = rpc.call(request);
        if (!(reply instanceof RpcClient.Reply.Ok ok)) {
            return failed(OpFn.POLL, invoked, reply, false);
        }
        Map<String, List<OffsetMsg>> polled;
        try {
            polled = pollMsgs(ok.body());
        } catch (MalformedReply e) {
            return done(OpType.INFO, OpFn.POLL, invoked, "malformed RPC response: " + e.getMessage());
        }
        Map<String, Long> highest = new TreeMap<>();
        polled.forEach((key, pairs) -> pairs.forEach(pair -> highest.merge(key, pair.offset(), Math::max)));
        highest.forEach((key, offset) -> offsets.merge(key, offset + 1, Math::max));
        if (!highest.isEmpty()) {
            ObjectNode commit = Json.MAPPER.createObjectNode().put("type", "commit_offsets");
            ObjectNode commitOffsets = commit.putObject("offsets");
            highest.forEach(commitOffsets::put);
            RpcClient.Reply committed = rpc.call(commit);
            if (!(committed instanceof RpcClient.Reply.Ok commitOk)) {
                return failed(OpFn.POLL, invoked, committed, false);
            }
            try {
                expect(commitOk.body(), "commit_offsets_ok", Set.of());
            } catch (MalformedReply e) {
                return done(OpType.INFO, OpFn.POLL, invoked, "malformed RPC response: " + e.getMessage());
            }
        }
        return done(OpType.OK, OpFn.POLL, new OpValue.Poll(polled), null);
    }

    @Override
    public void close() {
        rpc.close();
    }
}
