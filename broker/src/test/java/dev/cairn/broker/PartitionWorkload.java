package dev.cairn.broker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of {@link NetworkPartitionIT}, run as its own JVM inside the test's network namespace (the
 * test JVM cannot reach the brokers' addresses). Records are 8-byte ids; every outcome goes to a file, one line
 * per record: {@code id partition offset}.
 *
 * <pre>
 * produce BOOTSTRAP TOPIC PARTITIONS ACK_FILE STOP_FILE MAX_SECONDS
 *     creates the topic (replication factor 3), then sends with the default (idempotent, acks=all) producer
 *     until STOP_FILE exists, writing each acknowledged record as it is acknowledged
 * consume BOOTSTRAP TOPIC PARTITIONS OUT_FILE MAX_SECONDS
 *     reads every partition from offset 0 to the end offset it had when the consumer started
 * </pre>
 */
public final class PartitionWorkload {
    /** Records in flight at once: the producer waits for acknowledgements beyond this. */
    private static final int IN_FLIGHT_MAX = 2_000;

    private PartitionWorkload() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[1];
        String topic = args[2];
        int partitions = Integer.parseInt(args[3]);
        Path file = Path.of(args[4]);
        if (args[0].equals("produce")) {
            produce(bootstrap, topic, partitions, file, Path.of(args[5]), deadline(args[6]));
        } else {
            consume(bootstrap, topic, partitions, file, deadline(args[5]));
        }
    }

    private static long deadline(String seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(seconds));
    }

    private static void produce(String bootstrap, String topic, int partitions, Path ackFile, Path stopFile,
            long deadline) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3))).all().get(60, TimeUnit.SECONDS);
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        Semaphore inFlight = new Semaphore(IN_FLIGHT_MAX);
        long failures = 0;
        try (BufferedWriter out = Files.newBufferedWriter(ackFile, StandardCharsets.UTF_8);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            long[] failed = new long[1];
            for (long id = 0; !Files.exists(stopFile) && System.nanoTime() < deadline; id++) {
                while (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (System.nanoTime() >= deadline) {
                        throw new IllegalStateException("no acknowledgement before the deadline");
                    }
                }
                long recordId = id;
                producer.send(new ProducerRecord<>(topic, (int) (id % partitions), null,
                        ByteBuffer.allocate(8).putLong(id).array()), (metadata, error) -> {
                            synchronized (out) {
                                try {
                                    if (error == null) {
                                        out.write(recordId + " " + metadata.partition() + " " + metadata.offset()
                                                + "\n");
                                        out.flush();
                                    } else {
                                        failed[0]++;
                                    }
                                } catch (IOException e) {
                                    throw new IllegalStateException(e);
                                }
                            }
                            inFlight.release();
                        });
            }
            producer.flush();
            synchronized (out) {
                failures = failed[0];
            }
        }
        System.out.println("producer done; sends that failed (never acknowledged): " + failures);
    }

    private static void consume(String bootstrap, String topic, int partitions, Path outFile, long deadline)
            throws IOException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        long received = 0;
        try (BufferedWriter out = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8);
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assigned.add(new TopicPartition(topic, p));
            }
            consumer.assign(assigned);
            assigned.forEach(tp -> consumer.seek(tp, 0));
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, Duration.ofSeconds(60));
            while (!reachedEnd(consumer, ends)) {
                if (System.nanoTime() >= deadline) {
                    throw new IllegalStateException("did not reach the end offsets " + ends + " before the deadline");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    out.write(ByteBuffer.wrap(record.value()).getLong() + " " + record.partition() + " "
                            + record.offset() + "\n");
                    received++;
                }
            }
        }
        System.out.println("consumer done: " + received + " records");
    }

    private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), Duration.ofSeconds(60)) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
