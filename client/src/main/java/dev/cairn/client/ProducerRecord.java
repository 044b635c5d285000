package dev.cairn.client;

import java.util.List;
import java.util.Objects;

/**
 * A record to send. A null partition lets the partitioner choose (murmur2 of the key, or sticky for a null key);
 * a null timestamp means "now" on the producer (CreateTime). Arrays are not copied.
 *
 * @param topic the topic
 * @param partition the partition, or null
 * @param timestampMs the CreateTime in epoch milliseconds, or null
 * @param key the key, or null
 * @param value the value, or null
 * @param headers the headers, possibly empty
 */
public record ProducerRecord(String topic, Integer partition, Long timestampMs, byte[] key, byte[] value,
                             List<Header> headers) {
    public ProducerRecord {
        Objects.requireNonNull(topic, "topic");
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    public ProducerRecord(String topic, byte[] key, byte[] value) {
        this(topic, null, null, key, value, List.of());
    }
}
