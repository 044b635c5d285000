package dev.cairn.broker.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.HostPort;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineStartTest {

    /** A wildcard bind (as in a container) is registered under the host other brokers reach this one by. */
    @Test
    void theEngineAddressOfAWildcardBindIsTheBrokersRaftVoterHost() {
        BrokerConfig voter = BrokerConfig.fromMap(Map.of("node.id", "2", "raft.listener", "0.0.0.0:9093",
                "raft.voters", "1@broker-1:9093,2@broker-2:9093,3@broker-3:9093"));
        assertEquals("broker-2", EngineStart.advertisedHost(voter, voter.raftEngineListener()));
        // A broker outside raft.voters must give raft.listener a reachable host (BrokerConfig refuses a wildcard).
        BrokerConfig added = BrokerConfig.fromMap(Map.of("node.id", "4", "raft.listener", "broker-4:9093",
                "raft.voters", "1@broker-1:9093"));
        assertEquals("broker-4", EngineStart.advertisedHost(added, added.raftEngineListener()));
        BrokerConfig wildcardEngine = BrokerConfig.fromMap(Map.of("node.id", "4", "raft.listener", "broker-4:9093",
                "raft.voters", "1@broker-1:9093", "raft.engine.listener", "0.0.0.0:9095",
                "advertised.listeners", "kafka-4.example:9092"));
        assertEquals("broker-4", EngineStart.advertisedHost(wildcardEngine,
                wildcardEngine.raftEngineListener()));
        BrokerConfig bound = BrokerConfig.fromMap(Map.of("raft.engine.listener", "10.1.2.3:9095"));
        assertEquals("10.1.2.3", EngineStart.advertisedHost(bound, bound.raftEngineListener()));
        assertEquals("127.0.0.1", EngineStart.advertisedHost(BrokerConfig.defaults(), new HostPort("127.0.0.1", 0)));
    }
}
