package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cairn.protocol.ErrorCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When a batch goes: a batch that another record of the same size would not fit is sent at once, whatever
 * linger.ms says; a batch with room waits for linger.ms (or a flush). Against a fake broker, with a linger far
 * longer than the test may run.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProducerLingerTest {
    private static final int BATCH_BYTES = 256;
    private static final long LINGER_MS = TimeUnit.MINUTES.toMillis(10);

    @Test
    void aFullBatchGoesWithoutWaitingForLingerAndAPartialOneWaits() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker(batch -> ErrorCode.NONE);
             CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                     .bootstrapServers(broker.bootstrap()).batchSizeBytes(BATCH_BYTES).lingerMs(LINGER_MS)
                     .deliveryTimeoutMs(2 * LINGER_MS).build())) {
            // One 150-byte record fills a 256-byte batch: a second one would not fit. No further record arrives
            // to close the batch, so only the "full" rule can send it before linger.ms.
            CompletableFuture<RecordMetadata> full = producer.send(record(150));
            assertEquals(0, full.get(30, TimeUnit.SECONDS).offset());

            CompletableFuture<RecordMetadata> partial = producer.send(record(10));
            // The first batch's acknowledgement came and went; this one has room and lingers for minutes.
            assertFalse(partial.isDone(), "a batch with room waits for linger.ms");
            producer.flush(Duration.ofSeconds(30));
            assertEquals(1, partial.get(1, TimeUnit.SECONDS).offset());
            assertEquals(2, broker.log().size());
        }
    }

    private static ProducerRecord record(int valueBytes) {
        return new ProducerRecord(ScriptedBroker.TOPIC, null, null, null, new byte[valueBytes], List.of());
    }
}
