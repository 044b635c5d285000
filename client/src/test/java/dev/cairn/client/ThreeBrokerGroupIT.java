package dev.cairn.client;

import java.nio.file.Path;

/** {@link GroupScenarios} against three Cairn brokers, topics replicated three ways. */
class ThreeBrokerGroupIT extends GroupScenarios {
    @Override
    BrokerUnderTest startBroker(Path dataDir) throws Exception {
        return CairnCluster.start(dataDir, 6);
    }

    @Override
    int replicationFactor() {
        return 3;
    }
}
