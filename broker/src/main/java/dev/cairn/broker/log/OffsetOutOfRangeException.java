package dev.cairn.broker.log;

/**
 * A read asked for an offset below the log start offset or above the log end offset. The fetch path maps it
 * to {@code OFFSET_OUT_OF_RANGE}; it carries both bounds so the handler can answer without a second look.
 */
public final class OffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long requestedOffset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangeException(long requestedOffset, long logStartOffset, long logEndOffset) {
        super("offset " + requestedOffset + " outside [" + logStartOffset + ", " + logEndOffset + "]", null,
                false, false);
        this.requestedOffset = requestedOffset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public long requestedOffset() {
        return requestedOffset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }
}
