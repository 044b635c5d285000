package dev.cairn.maelstrom.harness;

/** Jepsen's operation types: an invocation and its three possible completions. */
public enum OpType {
    /** The client began the operation. */
    INVOKE,
    /** The operation certainly happened. */
    OK,
    /** The operation certainly did not happen and never will (a definite error). */
    FAIL,
    /** The outcome is unknown: a timeout, an indefinite error, a malformed reply or a client crash. */
    INFO
}
