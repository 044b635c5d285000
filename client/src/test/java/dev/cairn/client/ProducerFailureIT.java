package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Retries are bounded: when the broker goes away, queued records fail after delivery.timeout.ms, retriably. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProducerFailureIT {
    private static final int DELIVERY_TIMEOUT_MS = 3_000;
    @TempDir
    Path dataDir;

    @Test
    void recordsFailRetriablyAfterDeliveryTimeoutWhenTheBrokerIsGone() throws Exception {
        BrokerFixture broker = BrokerFixture.start(dataDir, Map.of());
        ProducerConfig config = ProducerConfig.builder().bootstrapServers(broker.bootstrap())
                .requestTimeoutMs(1_000).deliveryTimeoutMs(DELIVERY_TIMEOUT_MS).retryBackoffMs(50).build();
        try (CairnProducer producer = CairnProducer.create(config)) {
            RecordMetadata first = producer.send(new ProducerRecord("gone", 0, null, null, new byte[1], List.of()))
                    .get(60, TimeUnit.SECONDS);
            assertEquals(0, first.offset());
            broker.close();
            long start = System.nanoTime();
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                futures.add(producer.send(new ProducerRecord("gone", 0, null, null, new byte[1], List.of())));
            }
            for (CompletableFuture<RecordMetadata> future : futures) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> future.get(DELIVERY_TIMEOUT_MS * 5L, TimeUnit.MILLISECONDS));
                CairnException cause = assertInstanceOf(CairnException.class, failed.getCause());
                assertTrue(cause.isRetriable(), cause.toString());
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsedMs >= DELIVERY_TIMEOUT_MS - 100, "failed only after the delivery timeout: " + elapsedMs);
            producer.close(Duration.ofSeconds(5));
        }
    }
}
