package dev.cairn.client;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/** {@link ProducerScenarios} against Apache Kafka 4.4 (the kafka-it profile, on by default). */
@EnabledIfSystemProperty(named = KafkaBrokerProcess.ENABLED_PROPERTY, matches = "true")
class KafkaProducerIT extends ProducerScenarios {
    @BeforeAll
    static void start(@TempDir Path dataDir) throws Exception {
        broker = KafkaBrokerProcess.start(dataDir, 3);
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }
}
