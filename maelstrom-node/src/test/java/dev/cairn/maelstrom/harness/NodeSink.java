package dev.cairn.maelstrom.harness;

/** Where the network writes the lines addressed to one node: its stdin, or a recorder in tests. */
interface NodeSink {

    /** The node's id, e.g. {@code n0}. */
    String nodeId();

    /** Writes one JSON message line to the node. */
    void send(String line);
}
