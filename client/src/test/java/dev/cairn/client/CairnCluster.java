package dev.cairn.client;

import dev.cairn.broker.InProcessCluster;
import java.nio.file.Path;
import java.util.Map;

/** Three in-process Cairn brokers (the broker's shared test fixture), each a metadata voter; replication factor 3. */
final class CairnCluster implements BrokerUnderTest {
    private static final int BROKERS = 3;
    private final InProcessCluster cluster;

    private CairnCluster(InProcessCluster cluster) {
        this.cluster = cluster;
    }

    static CairnCluster start(Path dir, int partitions) throws Exception {
        return new CairnCluster(InProcessCluster.start(BROKERS, dir, Map.of(
                "num.partitions", Integer.toString(partitions),
                "default.replication.factor", Integer.toString(BROKERS))));
    }

    @Override
    public String bootstrap() {
        return cluster.bootstrap();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
