package dev.cairn.broker.engine;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.raft.Entry;
import dev.cairn.raft.runtime.RaftEngine;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * How a partition's commands reach its group on the engine: in {@link CommandCodec}'s format, an append's batch as
 * the entry's tail (the machine's {@link EnginePlacements} then turns it into a placement and its batch).
 */
final class EngineProposals {
    private EngineProposals() {
    }

    /**
     * Proposes {@code command} to {@code group}: an append's batch becomes the entry's tail as it is, not copied (it
     * must not change afterwards), behind a header of a few bytes; any other command is one array.
     */
    static CompletableFuture<Object> propose(RaftEngine engine, int group, Command command) {
        ByteBuffer[] parts = CommandCodec.encodeParts(command);
        if (parts.length == 1) {
            return engine.proposeOwned(group, encode(command), Entry.NO_TAIL);
        }
        byte[] header = new byte[parts[0].remaining()];
        parts[0].duplicate().get(header);
        return engine.proposeOwned(group, header, parts[1]);
    }

    /** The command as one entry's bytes, in one array (what a follower receives and the engine's log keeps). */
    static byte[] encode(Command command) {
        ByteBuffer[] parts = CommandCodec.encodeParts(command);
        int size = 0;
        for (ByteBuffer part : parts) {
            size += part.remaining();
        }
        byte[] bytes = new byte[size];
        int at = 0;
        for (ByteBuffer part : parts) {
            int length = part.remaining();
            part.duplicate().get(bytes, at, length);
            at += length;
        }
        return bytes;
    }
}
