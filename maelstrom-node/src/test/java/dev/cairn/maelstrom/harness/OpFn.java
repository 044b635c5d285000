package dev.cairn.maelstrom.harness;

/** The operation functions of Maelstrom's kafka workload (with {@code :sub-via #{:assign}}). */
public enum OpFn {
    /** Assign keys to the client via {@code list_committed_offsets}, or seek to the beginning. */
    ASSIGN,
    /** One {@code send} RPC. */
    SEND,
    /** One {@code poll} RPC, followed by {@code commit_offsets} when anything was polled. */
    POLL,
    /** A client crash: the client is thrown away and reopened with a new id and a new process. */
    CRASH
}
