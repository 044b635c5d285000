package dev.cairn.broker.log;

/**
 * A broken invariant of the storage engine or its caller (style.md point 6c): the state can no longer be
 * trusted, so the partition stops. Nobody catches it.
 */
public final class InvariantViolation extends Error {
    private static final long serialVersionUID = 1L;

    public InvariantViolation(String message) {
        super(message);
    }
}
