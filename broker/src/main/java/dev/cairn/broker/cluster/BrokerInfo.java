package dev.cairn.broker.cluster;

/** A registered broker: its node id, the Kafka address clients use, and its Raft (gRPC) address. */
public record BrokerInfo(int nodeId, String host, int port, String raftAddress) {
}
