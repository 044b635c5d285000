package dev.cairn.client;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** {@link ConsumerScenarios} against a single-node Cairn broker. */
class ConsumerIT extends ConsumerScenarios {
    @BeforeAll
    static void start(@TempDir Path dataDir) throws Exception {
        broker = BrokerUnderTest.cairn(dataDir, Map.of("num.partitions", "3"));
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }
}
