package dev.cairn.maelstrom.transport;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.maelstrom.node.MaelstromIo;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotReplyProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexReplyProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.protocol.RaftServerAsynchronousProtocol;
import org.apache.ratis.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import org.apache.ratis.thirdparty.com.google.protobuf.MessageLite;

/**
 * The outbound half of the Maelstrom transport: each Raft RPC becomes one {@code "raft"} Maelstrom request to
 * the peer whose id is the Maelstrom node id (peers need no address). Blocking calls wait at most the request
 * timeout, because Maelstrom partitions drop messages without telling anyone; a timeout surfaces as Ratis's
 * {@link TimeoutIOException}, which the log appender and the election retry.
 */
final class MaelstromServerRpc implements RaftServerRpc, RaftServerAsynchronousProtocol {
    /** Extra wait beyond the request timeout before a blocked caller gives up on the future itself. */
    private static final long GET_SLACK_MS = 500;

    @FunctionalInterface
    private interface Parser<T> {
        T parse(byte[] bytes) throws InvalidProtocolBufferException;
    }

    private final MaelstromIo io;
    private final long requestTimeoutMs;

    MaelstromServerRpc(MaelstromIo io, long requestTimeoutMs) {
        this.io = io;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    @Override
    public void start() {
        // The stdin reader and stdout writer belong to the node and are already running.
    }

    @Override
    public InetSocketAddress getInetSocketAddress() {
        // Peers are Maelstrom node ids, not socket addresses.
        return null;
    }

    @Override
    public RpcType getRpcType() {
        return new MaelstromRpcType();
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> peers) {
        // Nothing to connect: a peer's id is its Maelstrom node id.
    }

    @Override
    public void handleException(RaftPeerId serverId, Exception e, boolean reconnect) {
        // No connection state to reset.
    }

    @Override
    public void notifyNotLeader(RaftGroupId groupId) {
        // No per-leader state.
    }

    @Override
    public void close() {
        // The I/O hub outlives the Raft server.
    }

    @Override
    public RaftServerAsynchronousProtocol async() {
        return this;
    }

    private static String destination(RaftRpcRequestProto request) {
        return RaftPeerId.valueOf(request.getReplyId()).toString();
    }

    private CompletableFuture<ObjectNode> send(String op, RaftRpcRequestProto header, MessageLite request) {
        ObjectNode body = MaelstromIo.mapper().createObjectNode()
                .put("type", "raft").put("op", op).put("b64", MaelstromTransport.encode(request));
        return io.rpc(destination(header), body, requestTimeoutMs);
    }

    private static <T> T parseReply(ObjectNode reply, Parser<T> parser) throws IOException {
        if (!"raft_ok".equals(reply.path("type").asText())) {
            throw new IOException("peer failed the request: " + reply.path("text").asText());
        }
        return parser.parse(MaelstromTransport.decode(reply));
    }

    private <T> T call(String op, RaftRpcRequestProto header, MessageLite request, Parser<T> parser)
            throws IOException {
        CompletableFuture<ObjectNode> future = send(op, header, request);
        ObjectNode reply;
        try {
            reply = future.get(requestTimeoutMs + GET_SLACK_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(op + " interrupted");
            interrupted.initCause(e);
            throw interrupted;
        } catch (TimeoutException e) {
            throw new TimeoutIOException(op + " to " + destination(header) + " timed out", e);
        } catch (ExecutionException e) {
            throw asIoException(op, header, e.getCause());
        }
        return parseReply(reply, parser);
    }

    private static IOException asIoException(String op, RaftRpcRequestProto header, Throwable cause) {
        Throwable c = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof MaelstromIo.RpcTimeoutException) {
            return new TimeoutIOException(c.getMessage(), c);
        }
        if (c instanceof IOException io) {
            return io;
        }
        return new IOException(op + " to " + destination(header) + " failed", c);
    }

    private <T> CompletableFuture<T> callAsync(String op, RaftRpcRequestProto header, MessageLite request,
            Parser<T> parser) {
        return send(op, header, request).handle((reply, error) -> {
            try {
                if (error != null) {
                    throw asIoException(op, header, error);
                }
                return parseReply(reply, parser);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        });
    }

    @Override
    public RequestVoteReplyProto requestVote(RequestVoteRequestProto request) throws IOException {
        return call(MaelstromTransport.OP_VOTE, request.getServerRequest(), request, RequestVoteReplyProto::parseFrom);
    }

    @Override
    public AppendEntriesReplyProto appendEntries(AppendEntriesRequestProto request) throws IOException {
        return call(MaelstromTransport.OP_APPEND, request.getServerRequest(), request,
                AppendEntriesReplyProto::parseFrom);
    }

    @Override
    public InstallSnapshotReplyProto installSnapshot(InstallSnapshotRequestProto request) throws IOException {
        return call(MaelstromTransport.OP_SNAPSHOT, request.getServerRequest(), request,
                InstallSnapshotReplyProto::parseFrom);
    }

    @Override
    public StartLeaderElectionReplyProto startLeaderElection(StartLeaderElectionRequestProto request)
            throws IOException {
        return call(MaelstromTransport.OP_ELECT, request.getServerRequest(), request,
                StartLeaderElectionReplyProto::parseFrom);
    }

    @Override
    public CompletableFuture<AppendEntriesReplyProto> appendEntriesAsync(AppendEntriesRequestProto request) {
        return callAsync(MaelstromTransport.OP_APPEND, request.getServerRequest(), request,
                AppendEntriesReplyProto::parseFrom);
    }

    @Override
    public CompletableFuture<ReadIndexReplyProto> readIndexAsync(ReadIndexRequestProto request) {
        return callAsync(MaelstromTransport.OP_READ_INDEX, request.getServerRequest(), request,
                ReadIndexReplyProto::parseFrom);
    }
}
