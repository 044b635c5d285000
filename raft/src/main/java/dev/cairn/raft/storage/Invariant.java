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
}
