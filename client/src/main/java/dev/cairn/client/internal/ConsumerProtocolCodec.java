package dev.cairn.client.internal;

import dev.cairn.client.CairnException;
import dev.cairn.client.TopicPartition;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The consumer protocol's member metadata (JoinGroup) and assignment (SyncGroup) bytes, exactly as kafka-clients
 * writes them, so that Cairn's consumers and Kafka's share one group. Layout per Kafka's
 * {@code ConsumerProtocolSubscription.json} and {@code ConsumerProtocolAssignment.json} (versions 0-3, not
 * flexible): an int16 version, then
 *
 * <pre>
 *   Subscription: Topics [string], UserData nullable bytes, OwnedPartitions [Topic string, Partitions [int32]] (v1+),
 *                 GenerationId int32 (v2+), RackId nullable string (v3+)
 *   Assignment:   AssignedPartitions [Topic string, Partitions [int32]], UserData nullable bytes
 * </pre>
 *
 * Arrays carry an int32 count, strings an int16 length, bytes an int32 length (-1 = null). As in kafka-clients, a
 * newer version than 3 is read with the version-3 layout (new versions only append fields).
 */
public final class ConsumerProtocolCodec {
    /** The version written, kafka-clients 4.x's highest. */
    public static final short VERSION = 3;
    /** Bounds a count read from another member's bytes, so that a corrupt count cannot allocate without limit. */
    private static final int ARRAY_LENGTH_MAX = 1_000_000;

    private ConsumerProtocolCodec() {
    }

    /** One member's JoinGroup metadata. */
    public record Subscription(List<String> topics, byte[] userData, List<TopicPartition> ownedPartitions,
                               int generationId, String rackId) {
    }

    /** One member's SyncGroup assignment. */
    public record Assignment(List<TopicPartition> partitions, byte[] userData) {
    }

    public static byte[] encodeSubscription(Subscription subscription) {
        ByteBuffer out = ByteBuffer.allocate(subscriptionSize(subscription));
        out.putShort(VERSION);
        out.putInt(subscription.topics().size());
        subscription.topics().forEach(topic -> putString(out, topic));
        putBytes(out, subscription.userData());
        putPartitions(out, subscription.ownedPartitions());
        out.putInt(subscription.generationId());
        putString(out, subscription.rackId());
        return out.array();
    }

    private static int subscriptionSize(Subscription subscription) {
        int size = 2 + 4;
        for (String topic : subscription.topics()) {
            size += stringSize(topic);
        }
        size += 4 + (subscription.userData() == null ? 0 : subscription.userData().length);
        size += partitionsSize(subscription.ownedPartitions());
        return size + 4 + stringSize(subscription.rackId());
    }

    public static Subscription decodeSubscription(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            short version = in.getShort();
            if (version < 0) {
                throw new CairnException("consumer subscription version " + version + " is negative", false);
            }
            int count = arrayLength(in);
            List<String> topics = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                topics.add(getString(in));
            }
            byte[] userData = getBytes(in);
            List<TopicPartition> owned = version >= 1 ? getPartitions(in) : List.of();
            int generation = version >= 2 ? in.getInt() : -1;
            String rack = version >= 3 ? getString(in) : null;
            return new Subscription(topics, userData, owned, generation, rack);
        } catch (BufferUnderflowException truncated) {
            throw new CairnException("consumer subscription bytes are truncated", false, truncated);
        }
    }

    public static byte[] encodeAssignment(Assignment assignment) {
        int size = 2 + partitionsSize(assignment.partitions()) + 4
                + (assignment.userData() == null ? 0 : assignment.userData().length);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putShort(VERSION);
        putPartitions(out, assignment.partitions());
        putBytes(out, assignment.userData());
        return out.array();
    }

    /** An empty byte array (what a coordinator sends a member it has no assignment for) is an empty assignment. */
    public static Assignment decodeAssignment(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return new Assignment(List.of(), null);
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            short version = in.getShort();
            if (version < 0) {
                throw new CairnException("consumer assignment version " + version + " is negative", false);
            }
            List<TopicPartition> partitions = getPartitions(in);
            return new Assignment(partitions, getBytes(in));
        } catch (BufferUnderflowException truncated) {
            throw new CairnException("consumer assignment bytes are truncated", false, truncated);
        }
    }

    /** Groups partitions by topic in first-seen order, as the TopicPartition arrays need. */
    private static Map<String, List<Integer>> byTopic(List<TopicPartition> partitions) {
        Map<String, List<Integer>> grouped = new LinkedHashMap<>();
        partitions.forEach(tp -> grouped.computeIfAbsent(tp.topic(), unused -> new ArrayList<>()).add(tp.partition()));
        return grouped;
    }

    private static int partitionsSize(List<TopicPartition> partitions) {
        int size = 4;
        for (Map.Entry<String, List<Integer>> entry : byTopic(partitions).entrySet()) {
            size += stringSize(entry.getKey()) + 4 + 4 * entry.getValue().size();
        }
        return size;
    }

    private static void putPartitions(ByteBuffer out, List<TopicPartition> partitions) {
        Map<String, List<Integer>> grouped = byTopic(partitions);
        out.putInt(grouped.size());
        grouped.forEach((topic, ids) -> {
            putString(out, topic);
            out.putInt(ids.size());
            ids.forEach(out::putInt);
        });
    }

    private static List<TopicPartition> getPartitions(ByteBuffer in) {
        int topics = arrayLength(in);
        List<TopicPartition> partitions = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            String topic = getString(in);
            int count = arrayLength(in);
            for (int p = 0; p < count; p++) {
                partitions.add(new TopicPartition(topic, in.getInt()));
            }
        }
        return partitions;
    }

    private static int arrayLength(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return 0; // A null array reads as empty: the consumer protocol never distinguishes the two.
        }
        if (length > ARRAY_LENGTH_MAX || length > in.remaining()) {
            throw new CairnException("consumer protocol array length " + length + " exceeds the "
                    + in.remaining() + " bytes left", false);
        }
        return length;
    }

    private static int stringSize(String text) {
        return 2 + (text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length);
    }

    private static void putString(ByteBuffer out, String text) {
        if (text == null) {
            out.putShort((short) -1);
            return;
        }
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        out.putShort((short) utf8.length);
        out.put(utf8);
    }

    private static String getString(ByteBuffer in) {
        short length = in.getShort();
        if (length < 0) {
            return null;
        }
        byte[] utf8 = new byte[length];
        in.get(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    private static void putBytes(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.putInt(-1);
            return;
        }
        out.putInt(bytes.length);
        out.put(bytes);
    }

    private static byte[] getBytes(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return null;
        }
        if (length > in.remaining()) {
            throw new CairnException("consumer protocol user data of " + length + " bytes exceeds the "
                    + in.remaining() + " bytes left", false);
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }
}
