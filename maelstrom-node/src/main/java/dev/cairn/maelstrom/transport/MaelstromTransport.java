package dev.cairn.maelstrom.transport;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.maelstrom.node.MaelstromIo;
import java.io.IOException;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.MessageLite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raft over Maelstrom messages: the node-side half of the transport, shared by the outbound
 * {@link MaelstromServerRpc} and the inbound dispatch ({@link #onRaftRequest}).
 *
 * <pre>
 *   request  {"type":"raft", "op":"append"|"vote"|"snapshot"|"elect"|"read_index",
 *             "b64":&lt;request proto&gt;, "msg_id":N}
 *   reply    {"type":"raft_ok", "b64":&lt;reply proto&gt;, "in_reply_to":N}
 *          | {"type":"raft_error", "text":"...", "in_reply_to":N}
 * </pre>
 *
 * The protos are Ratis's own ({@code RaftProtos}), base64 of {@code toByteArray()}; the receiving server routes
 * them by the group id inside. Inbound requests run on a bounded pool; when it is full the request is dropped,
 * which Raft treats like a message lost to a partition (the sender times out and retries).
 */
public final class MaelstromTransport {
    private static final Logger LOG = LoggerFactory.getLogger(MaelstromTransport.class);

    static final String OP_APPEND = "append";
    static final String OP_VOTE = "vote";
    static final String OP_SNAPSHOT = "snapshot";
    static final String OP_ELECT = "elect";
    static final String OP_READ_INDEX = "read_index";

    private final MaelstromIo io;
    private final ExecutorService inbound;
    private final long requestTimeoutMs;
    private volatile RaftServer server;

    /**
     * @param inbound runs inbound Raft requests; must be bounded (rejections drop the request)
     * @param requestTimeoutMs how long an outbound Raft request waits for its reply
     */
    public MaelstromTransport(MaelstromIo io, ExecutorService inbound, long requestTimeoutMs) {
        this.io = io;
        this.inbound = inbound;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    MaelstromServerRpc bind(RaftServer raftServer) {
        this.server = raftServer;
        return new MaelstromServerRpc(io, requestTimeoutMs);
    }

    static String encode(MessageLite proto) {
        return Base64.getEncoder().encodeToString(proto.toByteArray());
    }

    static byte[] decode(ObjectNode body) {
        return Base64.getDecoder().decode(body.path("b64").asText());
    }

    /** Handles one {@code "raft"} request from node {@code src}; called on the stdin reader, so it only queues. */
    public void onRaftRequest(String src, ObjectNode body) {
        try {
            inbound.execute(() -> handle(src, body));
        } catch (RejectedExecutionException e) {
            LOG.warn("inbound Raft pool full: dropped {} from {}", body.path("op").asText(), src);
        }
    }

    private void handle(String src, ObjectNode body) {
        RaftServer target = server;
        if (target == null) {
            replyError(src, body, "Raft server not started");
            return;
        }
        try {
            byte[] bytes = decode(body);
            String op = body.path("op").asText();
            switch (op) {
                case OP_APPEND -> answer(src, body,
                        target.appendEntriesAsync(AppendEntriesRequestProto.parseFrom(bytes)));
                case OP_VOTE -> replyOk(src, body, target.requestVote(RequestVoteRequestProto.parseFrom(bytes)));
                case OP_SNAPSHOT -> replyOk(src, body,
                        target.installSnapshot(InstallSnapshotRequestProto.parseFrom(bytes)));
                case OP_ELECT -> replyOk(src, body,
                        target.startLeaderElection(StartLeaderElectionRequestProto.parseFrom(bytes)));
                case OP_READ_INDEX -> answer(src, body,
                        target.readIndexAsync(ReadIndexRequestProto.parseFrom(bytes)));
                default -> replyError(src, body, "unknown Raft op " + op);
            }
        } catch (IOException | RuntimeException e) {
            // Ratis reports a request for a group this server does not (yet) host, a stale term and the like as
            // exceptions; the sender sees an IOException, as it would over gRPC.
            replyError(src, body, e.toString());
        }
    }

    private void answer(String src, ObjectNode request, CompletableFuture<? extends MessageLite> reply) {
        reply.whenComplete((proto, error) -> {
            if (error != null) {
                replyError(src, request, error.toString());
            } else {
                replyOk(src, request, proto);
            }
        });
    }

    private void replyOk(String src, ObjectNode request, MessageLite proto) {
        io.reply(src, request,
                MaelstromIo.mapper().createObjectNode().put("type", "raft_ok").put("b64", encode(proto)));
    }

    private void replyError(String src, ObjectNode request, String text) {
        io.reply(src, request, MaelstromIo.mapper().createObjectNode().put("type", "raft_error").put("text", text));
    }
}
