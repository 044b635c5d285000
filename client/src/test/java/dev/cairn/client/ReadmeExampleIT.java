package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Keeps the usage example in client/README.md compiling and working: {@link #example} is the README's code. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadmeExampleIT {
    @TempDir
    Path dataDir;

    @Test
    void readmeShowsExactlyThisExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/dev/cairn/client/ReadmeExampleIT.java"));
        // The markers are assembled here so that these lines do not match themselves.
        String begin = "// README-" + "BEGIN\n";
        int start = source.indexOf(begin) + begin.length();
        String body = source.substring(start, source.indexOf("        // README-" + "END", start));
        StringBuilder unindented = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            unindented.append(line.startsWith("        ") ? line.substring(8) : line).append('\n');
        }
        String readme = Files.readString(Path.of("README.md"));
        String expected = "```java\n" + unindented.toString().stripTrailing() + "\n```";
        assertTrue(readme.contains(expected), "client/README.md must show the example in ReadmeExampleIT");
    }

    @Test
    void readmeExampleRuns() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of())) {
            List<String> seen = example(broker.bootstrap());
            assertEquals(List.of("hello", "world", "hello", "world"), seen, "assigned, then as a group member");
        }
    }

    /** The README example, verbatim between the markers. */
    static List<String> example(String bootstrap) throws Exception {
        // README-BEGIN
        ProducerConfig producerConfig = ProducerConfig.builder()
                .bootstrapServers(bootstrap)
                .compression(dev.cairn.protocol.record.compression.CompressionType.GZIP)
                .lingerMs(10)
                .build();
        try (CairnProducer producer = CairnProducer.create(producerConfig)) {
            for (String word : List.of("hello", "world")) {
                producer.send(new ProducerRecord("greetings", 0, null, null,
                                word.getBytes(StandardCharsets.UTF_8), List.of(new Header("lang", null))))
                        .whenComplete((metadata, error) -> {
                            if (error != null) {
                                boolean worthRetrying = ((CairnException) error).isRetriable();
                                System.err.println("not sent (retriable: " + worthRetrying + "): " + error);
                            }
                        });
            }
            producer.flush(Duration.ofSeconds(30));
        }

        List<String> seen = new ArrayList<>();
        ConsumerConfig consumerConfig = ConsumerConfig.builder()
                .bootstrapServers(bootstrap)
                .maxPollRecords(100)
                .build();
        try (CairnConsumer consumer = CairnConsumer.create(consumerConfig)) {
            TopicPartition partition = new TopicPartition("greetings", 0);
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.size() < 2 && System.nanoTime() < deadline) {
                for (ConsumerRecord record : consumer.poll(Duration.ofMillis(500))) {
                    seen.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }

        // A consumer group: members share the partitions; committing on revoke hands them on exactly.
        ConsumerConfig groupConfig = ConsumerConfig.builder()
                .bootstrapServers(bootstrap)
                .groupId("greeters")
                .assignors("cooperative-sticky")
                .offsetReset(ConsumerConfig.OffsetReset.EARLIEST)
                .autoCommit(false)
                .build();
        try (CairnConsumer member = CairnConsumer.create(groupConfig)) {
            member.subscribe(List.of("greetings"), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    member.commitSync();
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    System.out.println("now reading " + partitions);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.size() < 4 && System.nanoTime() < deadline) {
                for (ConsumerRecord record : member.poll(Duration.ofMillis(500))) {
                    seen.add(new String(record.value(), StandardCharsets.UTF_8));
                }
                member.commitSync();
            }
        }
        // README-END
        return seen;
    }
}
