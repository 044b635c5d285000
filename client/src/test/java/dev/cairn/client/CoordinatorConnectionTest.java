package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.client.internal.BrokerConnection;
import dev.cairn.client.internal.ClusterClient;
import dev.cairn.protocol.ErrorCode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group coordinator's connection is for group requests only. A broker answers a connection's requests in order,
 * so a Metadata or FindCoordinator request queued behind a JoinGroup that the coordinator parks for the rebalance
 * would wait out the whole rebalance; a consumer blocked there cannot poll its other work, and against Apache Kafka
 * a group of such members never settled (the held-open rebalance scenario in GroupScenarios).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CoordinatorConnectionTest {
    @Test
    void metadataNeverGoesOverTheCoordinatorConnection() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker(batch -> ErrorCode.NONE);
             ClusterClient cluster = new ClusterClient(ProducerConfig.builder().bootstrapServers(broker.bootstrap())
                     .build().bootstrapServers(), "test", 5_000, System::currentTimeMillis)) {
            cluster.refreshMetadata(List.of(ScriptedBroker.TOPIC), false);
            BrokerConnection bootstrap = cluster.anyConnection();
            BrokerConnection coordinator = cluster.coordinatorConnection(0);
            assertNotSame(bootstrap, coordinator, "the coordinator gets a connection of its own");
            bootstrap.close();

            BrokerConnection forMetadata = cluster.anyConnection();
            assertNotSame(coordinator, forMetadata, "the only usable connection is the coordinator's");
            assertTrue(coordinator.isUsable());
            assertSame(forMetadata, cluster.anyConnection(), "the new connection is reused");
            cluster.refreshMetadata(List.of(ScriptedBroker.TOPIC), false);
        }
    }
}
