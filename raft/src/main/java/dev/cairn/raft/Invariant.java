package dev.cairn.raft;

/**
 * Always-on checks of facts the Raft core relies on (style.md point 7). A failed check is a bug, never an input
 * error: it throws {@link InvariantViolation}, which nobody catches.
 */
final class Invariant {

    private Invariant() {
    }

    static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new InvariantViolation(String.format(format, args));
        }
    }

    /** A broken invariant of the Raft core. An {@link Error}: the group that raises it must stop. */
    static final class InvariantViolation extends Error {
        private static final long serialVersionUID = 1L;

        InvariantViolation(String message) {
            super(message);
        }
    }
}
