package dev.cairn.client;

import java.nio.file.Path;
import java.util.Map;

/** {@link GroupScenarios} against a single-node Cairn broker. */
class GroupIT extends GroupScenarios {
    @Override
    BrokerUnderTest startBroker(Path dataDir) throws Exception {
        return BrokerUnderTest.cairn(dataDir, Map.of());
    }
}
