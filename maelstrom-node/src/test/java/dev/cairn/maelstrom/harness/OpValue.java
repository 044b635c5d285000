package dev.cairn.maelstrom.harness;

import java.util.List;
import java.util.Map;

/** The value of a history operation; which variant depends on the operation's {@link OpFn}. */
public sealed interface OpValue {

    /** {@code :assign [keys]}; {@code seekToBeginning} is the final phase's rewind to offset 0. */
    record Assign(List<String> keys, boolean seekToBeginning) implements OpValue {
        public Assign {
            keys = List.copyOf(keys);
        }
    }

    /** {@code [:send key [offset msg]]}; {@code offset} is null while unknown (invoke, fail, info). */
    record Send(String key, long msg, Long offset) implements OpValue {
    }

    /**
     * {@code [:poll {key [[offset msg] ...]}]}; {@code msgs} is null for an invocation and for a poll that
     * did not complete ok (Maelstrom keeps the invocation's value then, so its reads are not in the history).
     */
    record Poll(Map<String, List<OffsetMsg>> msgs) implements OpValue {
    }

    /** A client crash carries no value. */
    record None() implements OpValue {
    }
}
