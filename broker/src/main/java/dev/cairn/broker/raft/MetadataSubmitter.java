package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataCodec;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.protocol.ErrorCode;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * This broker's Raft client of the metadata group: submits metadata commands (topic changes, registrations, replica
 * states) and answers once this broker has applied them. Callers include Netty event loops, so a command is refused
 * at once with REQUEST_TIMED_OUT while {@link #OUTSTANDING_MAX} are outstanding, rather than waiting for a Ratis
 * permit on the caller's thread (see {@link KeptClient}).
 */
final class MetadataSubmitter implements Closeable {
    /** Metadata commands this broker may have outstanding at once; Ratis's own bound is set one above. */
    static final int OUTSTANDING_MAX = 256;

    private final RaftClient client;
    private final KeptClient sends;
    private final AppliedIndexWaiters applied;

    MetadataSubmitter(RaftGroup group, RaftProperties properties, Parameters parameters,
            AppliedIndexWaiters applied) {
        RaftProperties bounded = KeptClient.clientProperties(properties, OUTSTANDING_MAX);
        this.client = RaftClient.newBuilder().setRaftGroup(group).setProperties(bounded).setParameters(parameters)
                .build();
        this.sends = new KeptClient(client, List.of(), OUTSTANDING_MAX);
        this.applied = applied;
    }

    /** The client itself, for blocking admin calls off the event loops (joining the cluster at start). */
    RaftClient client() {
        return client;
    }

    CompletableFuture<MetadataResult> submit(MetadataCommand command) {
        Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(MetadataCodec.encode(command)));
        CompletableFuture<RaftClientReply> sent = sends.start(raft -> raft.async().send(message));
        if (sent == null) {
            return CompletableFuture.completedFuture(new MetadataResult.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                    "metadata change refused: " + OUTSTANDING_MAX + " are outstanding already"));
        }
        return sent.thenCompose(reply -> reply.isSuccess()
                ? applied.await(reply.getLogIndex()).thenApply(done -> MetadataCodec.decodeResult(
                        reply.getMessage().getContent().asReadOnlyByteBuffer()))
                : CompletableFuture.<MetadataResult>completedFuture(new MetadataResult.Rejected(
                        ErrorCode.REQUEST_TIMED_OUT, "metadata change failed: " + reply.getException())))
                .exceptionally(error -> new MetadataResult.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                        "metadata change failed: " + error));
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
