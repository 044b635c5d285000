package dev.cairn.maelstrom.harness;

import java.util.Set;

/** Maelstrom's error codes ({@code resources/errors.edn}, maelstrom.md 2.3). */
final class ErrorCodes {

    /** timeout: indefinite. */
    static final int TIMEOUT = 0;
    /** crash: indefinite. */
    static final int CRASH = 13;

    /**
     * Definite codes: the operation certainly did not happen. Every other code, including 0, 13, unknown codes
     * and application codes from 1000 up, is indefinite.
     */
    static final Set<Integer> DEFINITE = Set.of(1, 10, 11, 12, 14, 20, 21, 22, 30);

    private ErrorCodes() {
    }

    static boolean isDefinite(int code) {
        return DEFINITE.contains(code);
    }
}
