package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.BrokerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17, acceptance 4: one partition whose disk writes hang does not hold up produce to other partitions.
 * The broker runs on a file system whose writes to partition {@code stuck-0}'s segment files block until the test
 * releases them. While a produce to it waits, three other producers, each on its own connections, produce to
 * {@code free-0} and are all acknowledged. A produce on the stuck producer's own connection is not part of the
 * check: Kafka answers a connection's requests in order, and a producer puts its batches for one broker in one
 * request, so those wait for the stuck partition with Kafka too.
 */
class SlowPartitionIT {
    private static final int OTHER_PRODUCERS = 3;
    private static final int RECORDS_PER_PRODUCER = 100;

    @TempDir
    Path dataDir;

    @Test
    @Timeout(120)
    void aPartitionWhoseDiskWritesHangDoesNotHoldUpOthers() throws Exception {
        GatedFileIo io = new GatedFileIo("stuck-0");
        BrokerConfig config = BrokerConfig.fromMap(Map.of("listeners", "127.0.0.1:0",
                "raft.listener", "127.0.0.1:" + BrokerFixture.freePort(), "log.dirs", dataDir.toString()));
        try (Broker broker = Broker.start(config, io)) {
            String bootstrap = "127.0.0.1:" + broker.kafkaPort();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("stuck", 1, (short) 1), new NewTopic("free", 1, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> stuckProducer = producer(bootstrap)) {
                // Both partitions take a record first, so each has its segment open before the gate closes.
                stuckProducer.send(new ProducerRecord<>("stuck", new byte[] {1})).get(60, TimeUnit.SECONDS);
                stuckProducer.send(new ProducerRecord<>("free", new byte[] {1})).get(60, TimeUnit.SECONDS);
                io.close();
                Future<RecordMetadata> stuck;
                List<KafkaProducer<byte[], byte[]>> others = new ArrayList<>();
                try {
                    stuck = stuckProducer.send(new ProducerRecord<>("stuck", new byte[] {2}));
                    assertTrue(io.awaitBlockedWrite(60, TimeUnit.SECONDS), "the stuck partition's write was held");
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int p = 0; p < OTHER_PRODUCERS; p++) {
                        KafkaProducer<byte[], byte[]> other = producer(bootstrap);
                        others.add(other);
                        for (int i = 0; i < RECORDS_PER_PRODUCER; i++) {
                            sent.add(other.send(new ProducerRecord<>("free", new byte[] {(byte) p, (byte) i})));
                        }
                    }
                    for (Future<RecordMetadata> ack : sent) {
                        assertEquals("free", ack.get(60, TimeUnit.SECONDS).topic());
                    }
                    assertFalse(stuck.isDone(), "the stuck partition's produce was still waiting for its disk");
                } finally {
                    // Released whatever happened, so that the broker can close.
                    io.open();
                    others.forEach(KafkaProducer::close);
                }
                assertEquals(1, stuck.get(60, TimeUnit.SECONDS).offset(), "released, the stuck produce completes");
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 110_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 100_000);
        return new KafkaProducer<>(props);
    }

    /** The real file system, except that writes under one directory wait while the gate is closed. */
    private static final class GatedFileIo extends ForwardingFileIo {
        private final String gatedDirectory;
        private final CountDownLatch blockedWrite = new CountDownLatch(1);
        private volatile CountDownLatch gate = new CountDownLatch(0);

        GatedFileIo(String gatedDirectory) {
            this.gatedDirectory = gatedDirectory;
        }

        void close() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        boolean awaitBlockedWrite(long timeout, TimeUnit unit) throws InterruptedException {
            return blockedWrite.await(timeout, unit);
        }

        @Override
        void beforeWrite(Path path) throws IOException {
            Path parent = path.getParent();
            CountDownLatch current = gate;
            if (parent != null && parent.getFileName().toString().equals(gatedDirectory) && current.getCount() > 0) {
                blockedWrite.countDown();
                try {
                    current.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted at the gate", e);
                }
            }
        }
    }
}
