package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Without a reachable broker every wait is bounded and ends in an exception that says whether to retry. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerFailureTest {
    /** A loopback port with nothing listening: connections are refused at once. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void sendGivesUpAfterMaxBlockWhenNoBrokerAnswers() throws Exception {
        ProducerConfig config = ProducerConfig.builder().bootstrapServers("127.0.0.1:" + closedPort())
                .maxBlockMs(500).retryBackoffMs(50).build();
        try (CairnProducer producer = CairnProducer.create(config)) {
            long start = System.nanoTime();
            CairnTimeoutException failure = assertThrows(CairnTimeoutException.class,
                    () -> producer.send(new ProducerRecord("t", null, new byte[1])));
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(failure.isRetriable());
            assertTrue(failure.getMessage().contains("max.block.ms"), failure.getMessage());
            assertTrue(elapsedMs < 10_000, "bounded by max.block.ms, took " + elapsedMs + " ms");
        }
    }

    @Test
    void aRecordLargerThanMaxRequestSizeFailsAtOnceAndNotRetriably() throws Exception {
        // send() first looks up the topic's metadata, which needs a broker; calling the engine's append directly
        // reaches the size check without one.
        ProducerConfig config = ProducerConfig.builder().bootstrapServers("127.0.0.1:" + closedPort())
                .set("max.request.size", 1_000).maxBlockMs(100).build();
        dev.cairn.client.internal.ClusterClient cluster = new dev.cairn.client.internal.ClusterClient(
                config.bootstrapServers(), "test", 1_000, System::currentTimeMillis);
        try (dev.cairn.client.internal.ProducerEngine engine =
                     new dev.cairn.client.internal.ProducerEngine(config, cluster)) {
            CairnApiException tooLarge = assertThrows(CairnApiException.class, () -> engine.append(
                    new TopicPartition("t", 0), 0L, null, new byte[2_000], new dev.cairn.protocol.record.RecordHeader[0],
                    System.currentTimeMillis() + 1_000, 0));
            assertEquals(dev.cairn.protocol.ErrorCode.MESSAGE_TOO_LARGE, tooLarge.errorCode());
            assertFalse(tooLarge.isRetriable());
        }
    }

    @Test
    void closedProducerRejectsSendsAndSaysRetryingCannotHelp() throws Exception {
        CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                .bootstrapServers("127.0.0.1:" + closedPort()).maxBlockMs(200).build());
        producer.close(Duration.ofSeconds(5));
        CairnClosedException failure = assertThrows(CairnClosedException.class,
                () -> producer.send(new ProducerRecord("t", 0, null, null, new byte[1], List.of())));
        assertFalse(failure.isRetriable());
    }
}
