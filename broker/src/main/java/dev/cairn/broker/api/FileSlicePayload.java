package dev.cairn.broker.api;

import dev.cairn.protocol.wire.RecordsPayload;
import java.nio.channels.FileChannel;

/**
 * Records that live in a log segment file: the network layer sends them with sendfile(2) instead of copying
 * them through the heap (docs/kafka-protocol.md A.5). The channel belongs to the log; the network layer never
 * closes it.
 */
public interface FileSlicePayload extends RecordsPayload {
    FileChannel channel();

    long position();
}
