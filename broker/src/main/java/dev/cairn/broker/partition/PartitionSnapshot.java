package dev.cairn.broker.partition;

import java.nio.ByteBuffer;

/**
 * What a partition snapshot records beside its Raft index: where the log started and ended when the snapshot
 * was taken (everything below {@code logEndOffset} was flushed first), and the idempotent-producer state.
 *
 * <pre>
 * formatVersion i32 (1), logStartOffset i64, logEndOffset i64, producerStateBytes i32, producerState
 * </pre>
 */
public record PartitionSnapshot(long logStartOffset, long logEndOffset, byte[] producerState) {
    private static final int FORMAT_VERSION = 1;

    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(4 + 8 + 8 + 4 + producerState.length);
        out.putInt(FORMAT_VERSION).putLong(logStartOffset).putLong(logEndOffset).putInt(producerState.length)
                .put(producerState);
        return out.array();
    }

    public static PartitionSnapshot decode(ByteBuffer in) {
        int version = in.getInt();
        if (version != FORMAT_VERSION) {
            throw new CommandFormatException("partition snapshot format " + version + " is not " + FORMAT_VERSION);
        }
        long logStartOffset = in.getLong();
        long logEndOffset = in.getLong();
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new CommandFormatException("partition snapshot producer state of " + length + " bytes, "
                    + in.remaining() + " available");
        }
        byte[] producerState = new byte[length];
        in.get(producerState);
        return new PartitionSnapshot(logStartOffset, logEndOffset, producerState);
    }
}
