package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@link GroupScenarios} against Apache Kafka 4.4 (the kafka-it profile, on by default), plus what only Kafka can
 * show because Cairn's broker has no CreatePartitions: partitions added to a subscribed topic get assigned.
 */
@EnabledIfSystemProperty(named = KafkaBrokerProcess.ENABLED_PROPERTY, matches = "true")
class KafkaGroupIT extends GroupScenarios {
    /** metadata.max.age.ms of the consumer watching for added partitions (Kafka's default is 300000). */
    private static final long METADATA_MAX_AGE_MS = 1_000;
    /** The longest a Kafka Admin call is waited for. */
    private static final long ADMIN_TIMEOUT_MS = 60_000;

    @Override
    BrokerUnderTest startBroker(Path dataDir) throws Exception {
        return KafkaBrokerProcess.start(dataDir, 6);
    }

    /**
     * The group leader re-reads the subscribed topics' metadata every metadata.max.age.ms and rebalances when a
     * partition count changed (kafka-clients ConsumerCoordinator: assignment snapshot vs metadata snapshot), so
     * the partitions added by CreatePartitions are assigned and consumed without any member joining or leaving.
     */
    @Test
    void partitionsAddedToASubscribedTopicAreAssignedAndConsumed() throws Exception {
        String topic = "group-growing";
        Properties adminProps = new Properties();
        adminProps.put("bootstrap.servers", bootstrap());
        Properties producerProps = new Properties();
        producerProps.put("bootstrap.servers", bootstrap());
        producerProps.put("key.serializer", ByteArraySerializer.class.getName());
        producerProps.put("value.serializer", ByteArraySerializer.class.getName());
        Set<Integer> partitionsRead = ConcurrentHashMap.newKeySet();
        try (Admin admin = Admin.create(adminProps);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps);
             CairnConsumer consumer = CairnConsumer.create(ConsumerConfig.builder().bootstrapServers(bootstrap())
                     .groupId("g-growing").assignors("cooperative-sticky").autoCommit(false)
                     .offsetReset(ConsumerConfig.OffsetReset.EARLIEST).metadataMaxAgeMs(METADATA_MAX_AGE_MS)
                     .build())) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 2, (short) 1)))
                    .all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            consumer.subscribe(List.of(topic));
            awaitCondition("the two partitions assigned", () -> {
                consumer.poll(Duration.ofMillis(100));
                return consumer.assignment().size() == 2;
            });
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4)))
                    .all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            for (int partition = 0; partition < 4; partition++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition, null,
                        ("p" + partition).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
            awaitCondition("a record read from each of the four partitions", () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> partitionsRead.add(record.partition()));
                return partitionsRead.size() == 4;
            });
            assertEquals(Set.of(0, 1, 2, 3), consumer.assignment().stream().map(TopicPartition::partition)
                    .collect(Collectors.toSet()), "assignment after the partitions were added");
        }
    }
}
