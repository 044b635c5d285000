package dev.cairn.client;

import java.util.List;

/**
 * A record read from a partition. Key, value and header values are copies owned by the caller.
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the record's offset
 * @param timestampMs its CreateTime or LogAppendTime
 * @param key the key, or null
 * @param value the value, or null
 * @param headers the headers in wire order
 */
public record ConsumerRecord(String topic, int partition, long offset, long timestampMs, byte[] key, byte[] value,
                             List<Header> headers) {
}
