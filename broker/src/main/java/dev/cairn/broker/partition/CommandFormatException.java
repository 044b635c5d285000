package dev.cairn.broker.partition;

/** Partition command or result bytes that cannot be decoded. */
public final class CommandFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommandFormatException(String message) {
        super(message);
    }
}
