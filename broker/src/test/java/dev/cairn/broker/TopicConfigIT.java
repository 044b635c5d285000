package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Topic-level configs given to CreateTopics take effect: retention and segment size, and max.message.bytes. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TopicConfigIT {
    @TempDir
    Path dataDir;

    private static List<Path> segmentFilesIn(Path logDir) throws IOException {
        try (Stream<Path> files = Files.list(logDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
        }
    }

    /** Every segment file under the data directory (logs and snapshots) whose base offset is below {@code offset}. */
    private List<Path> segmentFilesBelow(long offset) throws IOException {
        try (Stream<Path> files = Files.walk(dataDir)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.log"))
                    .filter(f -> Long.parseLong(f.getFileName().toString().substring(0, 20)) < offset)
                    .toList();
        }
    }

    @Test
    void topicRetentionDeletesOldSegmentsAndMaxMessageBytesIsEnforced() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("log.retention.check.interval.ms", "1000",
                "raft.snapshot.interval.entries", "100"))) {
            Properties props = new Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            try (Admin admin = Admin.create(props)) {
                admin.createTopics(List.of(new NewTopic("short-lived", 1, (short) 1).configs(Map.of(
                        "segment.bytes", "4096", "retention.ms", "1000", "max.message.bytes", "2048"))))
                        .all().get(60, TimeUnit.SECONDS);
            }
            props.put("key.serializer", ByteArraySerializer.class.getName());
            props.put("value.serializer", ByteArraySerializer.class.getName());
            props.put("batch.size", "1024");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
                for (int i = 0; i < 200; i++) {
                    producer.send(new ProducerRecord<>("short-lived", 0, null, new byte[300])).get(30, TimeUnit.SECONDS);
                }
                ExecutionException tooLarge = assertThrows(ExecutionException.class, () -> producer.send(
                        new ProducerRecord<>("short-lived", 0, null, new byte[4000])).get(30, TimeUnit.SECONDS));
                assertInstanceOf(RecordTooLargeException.class, tooLarge.getCause());
            }
            Properties consumerProps = new Properties();
            consumerProps.put("bootstrap.servers", broker.bootstrap());
            consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
            consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
            TopicPartition tp = new TopicPartition("short-lived", 0);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                long start = 0;
                while (start == 0 && System.nanoTime() < deadline) {
                    start = consumer.beginningOffsets(List.of(tp)).get(tp);
                    if (start == 0) {
                        TimeUnit.MILLISECONDS.sleep(200);
                    }
                }
                assertTrue(start > 0, "retention.ms=1000 deleted old segments: the log now starts at " + start);
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                assertTrue(start < end && end == 200, "the active segment stays: start " + start + ", end " + end);
                // Snapshots hard-link segments. Once retention has deleted every inactive segment (they are all
                // older than retention.ms by now), no snapshot may still hold one of them: the apply that deleted
                // them snapshots again at once (the next automatic snapshot is ~100 entries away).
                Path logDir = dataDir.resolve("logs").resolve("short-lived-0");
                while (segmentFilesIn(logDir).size() > 1 && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                List<Path> remaining = segmentFilesIn(logDir);
                assertEquals(1, remaining.size(), "retention left " + remaining);
                long logStart = Long.parseLong(remaining.get(0).getFileName().toString().substring(0, 20));
                long released = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!segmentFilesBelow(logStart).isEmpty() && System.nanoTime() < released) {
                    TimeUnit.MILLISECONDS.sleep(200);
                }
                assertEquals(List.of(), segmentFilesBelow(logStart), "deleted segments still held on disk");
            }
        }
    }
}
