import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce then consume throughput with the Kafka Java client's own producer and consumer, identical for any
 * Kafka-protocol broker. Producer on DEFAULT settings (idempotent, acks=all, linger 5 ms, 16 KiB batches);
 * consumer with assign() from offset 0. Prints one CSV line:
 * target,records,recordBytes,produceRecordsPerSec,produceMBPerSec,consumeRecordsPerSec,consumeMBPerSec
 *
 * Usage: java -cp 'libs/*' ClientBench.java TARGET BOOTSTRAP TOPIC RECORDS RECORD_BYTES PARTITIONS [CLIENT_PROPS]
 * The topic must exist with PARTITIONS partitions (or be auto-created with that many). CLIENT_PROPS, a properties
 * file, adds settings to both clients (security.protocol=SSL and the truststore, for the TLS comparison).
 */
public final class ClientBench {
    public static void main(String[] args) throws Exception {
        String target = args[0];
        String bootstrap = args[1];
        String topic = args[2];
        int records = Integer.parseInt(args[3]);
        int recordBytes = Integer.parseInt(args[4]);
        int partitions = Integer.parseInt(args[5]);
        Properties extra = new Properties();
        if (args.length > 6) {
            try (java.io.Reader in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(args[6]))) {
                extra.load(in);
            }
        }
        byte[] value = new byte[recordBytes];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        Properties producerProps = new Properties();
        producerProps.putAll(extra);
        producerProps.put("bootstrap.servers", bootstrap);
        producerProps.put("key.serializer", ByteArraySerializer.class.getName());
        producerProps.put("value.serializer", ByteArraySerializer.class.getName());
        AtomicLong failures = new AtomicLong();
        long produceStart = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, value), (metadata, error) -> {
                    if (error != null) {
                        failures.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " sends failed against " + target);
        }

        Properties consumerProps = new Properties();
        consumerProps.putAll(extra);
        consumerProps.put("bootstrap.servers", bootstrap);
        consumerProps.put("key.deserializer", ByteArrayDeserializer.class.getName());
        consumerProps.put("value.deserializer", ByteArrayDeserializer.class.getName());
        long consumed = 0;
        long consumeStart = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            List<TopicPartition> assignment = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assignment.add(new TopicPartition(topic, p));
            }
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (consumed < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> ignored : consumer.poll(Duration.ofMillis(500))) {
                    consumed++;
                }
            }
        }
        double consumeSeconds = (System.nanoTime() - consumeStart) / 1e9;
        if (consumed < records) {
            throw new IllegalStateException("consumed only " + consumed + " of " + records + " from " + target);
        }
        double mb = (double) records * recordBytes / (1024 * 1024);
        System.out.printf("%s,%d,%d,%.0f,%.1f,%.0f,%.1f%n", target, records, recordBytes, records / produceSeconds,
                mb / produceSeconds, records / consumeSeconds, mb / consumeSeconds);
    }
}
