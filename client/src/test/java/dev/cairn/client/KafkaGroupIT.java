package dev.cairn.client;

import java.nio.file.Path;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** {@link GroupScenarios} against Apache Kafka 4.4 (the kafka-it profile, on by default). */
@EnabledIfSystemProperty(named = KafkaBrokerProcess.ENABLED_PROPERTY, matches = "true")
class KafkaGroupIT extends GroupScenarios {
    @Override
    BrokerUnderTest startBroker(Path dataDir) throws Exception {
        return KafkaBrokerProcess.start(dataDir, 6);
    }
}
