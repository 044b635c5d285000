package dev.cairn.client;

import dev.cairn.broker.BrokerFixture;
import java.nio.file.Path;
import java.util.Map;

/**
 * The broker a scenario runs against: an in-process Cairn broker, or Apache Kafka in a child JVM
 * ({@link KafkaBrokerProcess}). Scenarios written once against this run against both.
 */
interface BrokerUnderTest extends AutoCloseable {
    String bootstrap();

    @Override
    void close() throws Exception;

    /** A single-node Cairn broker with these broker settings. */
    static BrokerUnderTest cairn(Path dataDir, Map<String, String> overrides) throws Exception {
        BrokerFixture fixture = BrokerFixture.start(dataDir, overrides);
        return new BrokerUnderTest() {
            @Override
            public String bootstrap() {
                return fixture.bootstrap();
            }

            @Override
            public void close() throws Exception {
                fixture.close();
            }

            @Override
            public String toString() {
                return "Cairn at " + fixture.bootstrap();
            }
        };
    }
}
