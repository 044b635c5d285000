package dev.cairn.raft.storage;

/** Always-on checks of facts the log relies on; a failed one is a bug, raised as an {@link AssertionError}. */
final class Invariant {

    private Invariant() {
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    /** As {@link #check(boolean, String)}, the message formatted only when the check fails (hot paths). */
    static void check(boolean condition, String format, long value) {
        if (!condition) {
            throw new AssertionError(String.format(format, value));
        }
    }
}
