package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * The kafka workload's client requests as the node serves them: each takes a request body and gives the reply
 * body, which the caller sends (Maelstrom's clients) or drops ({@link WarmUp}).
 */
interface ClientRequests {

    /** {@code send}: completes with {@code send_ok} or an error body, never exceptionally. */
    CompletableFuture<ObjectNode> send(ObjectNode body, long deadlineNs) throws IOException;

    /** {@code poll}: {@code poll_ok}. */
    ObjectNode poll(ObjectNode body) throws IOException;

    /** {@code commit_offsets}: completes with {@code commit_offsets_ok} or an error body, never exceptionally. */
    CompletableFuture<ObjectNode> commitOffsets(ObjectNode body, long deadlineNs);

    /** {@code list_committed_offsets}: {@code list_committed_offsets_ok}. */
    ObjectNode listCommittedOffsets(ObjectNode body);
}
