package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.client.CairnException;
import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Assignment;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.junit.jupiter.api.Test;

/** The consumer protocol bytes match kafka-clients' ConsumerProtocol byte for byte, both ways. */
class ConsumerProtocolCodecTest {
    private static byte[] bytes(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    @Test
    void subscriptionIsKafkasBytes() {
        byte[] userData = {0, 0, 0, 7};
        byte[] ours = ConsumerProtocolCodec.encodeSubscription(new Subscription(List.of("a", "b"), userData,
                List.of(new TopicPartition("a", 0), new TopicPartition("a", 2)), 7, null));
        byte[] kafkas = bytes(ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(
                List.of("a", "b"), ByteBuffer.wrap(userData), List.of(new org.apache.kafka.common.TopicPartition("a", 0),
                new org.apache.kafka.common.TopicPartition("a", 2)), 7, Optional.empty())));
        assertArrayEquals(kafkas, ours);
        Subscription decoded = ConsumerProtocolCodec.decodeSubscription(kafkas);
        assertEquals(List.of("a", "b"), decoded.topics());
        assertEquals(7, decoded.generationId());
        assertEquals(List.of(new TopicPartition("a", 0), new TopicPartition("a", 2)), decoded.ownedPartitions());
    }

    @Test
    void assignmentIsKafkasBytes() {
        byte[] ours = ConsumerProtocolCodec.encodeAssignment(new Assignment(List.of(new TopicPartition("t", 1),
                new TopicPartition("t", 4), new TopicPartition("u", 0)), null));
        byte[] kafkas = bytes(ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                List.of(new org.apache.kafka.common.TopicPartition("t", 1),
                        new org.apache.kafka.common.TopicPartition("t", 4),
                        new org.apache.kafka.common.TopicPartition("u", 0)))));
        assertArrayEquals(kafkas, ours);
        assertEquals(3, ConsumerProtocolCodec.decodeAssignment(kafkas).partitions().size());
    }

    @Test
    void corruptBytesFailClearly() {
        assertThrows(CairnException.class, () -> ConsumerProtocolCodec.decodeSubscription(new byte[] {0, 3, 0}));
        assertThrows(CairnException.class, () -> ConsumerProtocolCodec.decodeAssignment(
                new byte[] {0, 3, 0x7f, 0, 0, 0}));
        assertEquals(List.of(), ConsumerProtocolCodec.decodeAssignment(new byte[0]).partitions());
    }
}
