package dev.cairn.raft.runtime;

/** A Raft frame from a peer that is not well formed; the frame is dropped, nothing in it is applied. */
public final class FrameFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public FrameFormatException(String message) {
        super(message);
    }
}
