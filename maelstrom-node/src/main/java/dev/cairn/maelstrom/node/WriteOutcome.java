package dev.cairn.maelstrom.node;

import dev.cairn.broker.partition.Result;

/** What became of one command routed through {@link WriteRouter}, in Maelstrom's terms (maelstrom.md 2.3). */
public sealed interface WriteOutcome {

    /** Committed and applied by the leader, which answered {@code result}. */
    record Applied(Result result) implements WriteOutcome {
    }

    /** Certainly not applied and never will be: no leader accepted it (Maelstrom error 11 is safe). */
    record NotDone(String reason) implements WriteOutcome {
    }

    /** Maybe applied, maybe not, maybe later: a leader took it but no answer came (error 13 only). */
    record Unknown(String reason) implements WriteOutcome {
    }
}
