package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.List;

/** The test's history: every invocation and completion in the order they happened. Thread-safe. */
public final class History {

    /** Bound on history entries; a run this long is misconfigured (rate x time limit is far lower). */
    public static final int OPS_MAX = 10_000_000;

    private final List<KafkaOp> ops = new ArrayList<>();

    /** Appends {@code op}, assigning its index, and returns the indexed op. */
    public synchronized KafkaOp record(KafkaOp op) {
        if (ops.size() >= OPS_MAX) {
            throw new IllegalStateException("history exceeds OPS_MAX=" + OPS_MAX);
        }
        KafkaOp indexed = op.withIndex(ops.size());
        ops.add(indexed);
        return indexed;
    }

    /** A snapshot of the history so far. */
    public synchronized List<KafkaOp> snapshot() {
        return List.copyOf(ops);
    }
}
