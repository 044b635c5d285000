package dev.cairn.broker.cli;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The committed offsets of a group and their lag, as {@code kafka-consumer-groups --describe} prints them: for each
 * partition the group has an offset for, the committed offset, the partition's log end offset (its high watermark,
 * from the partition's leader) and the difference. Offsets come from the group's coordinator (OffsetFetch for all
 * topics), log end offsets from ListOffsets to each leader.
 */
final class GroupOffsetsView {
    /** ListOffsets' timestamp for the latest offset. */
    private static final long LATEST = -1;

    private GroupOffsetsView() {
    }

    /** A partition of the group: its committed offset and log end offset, -1 when unknown. */
    record Row(String topic, int partition, long committed, long logEnd) {
        String lag() {
            return committed < 0 || logEnd < 0 ? "-" : Long.toString(Math.max(0, logEnd - committed));
        }
    }

    /**
     * Prints the table; returns false when an offset could not be read (the row then shows "-").
     *
     * @param coordinator a connection to the group's coordinator
     */
    static boolean print(AdminOptions admin, AdminConnection coordinator, String groupId, PrintWriter out,
            PrintWriter err) throws IOException {
        Struct fetched = coordinator.send(ApiKey.OFFSET_FETCH, new Struct(OffsetFetchRequest.SCHEMA)
                .set(OffsetFetchRequest.GROUP_ID, groupId)
                .set(OffsetFetchRequest.TOPICS, null));
        ErrorCode error = ErrorCode.forCode(fetched.get(OffsetFetchResponse.ERROR_CODE));
        if (error != ErrorCode.NONE) {
            err.println("cairn: cannot read the offsets of group " + groupId + ": " + error);
            return false;
        }
        TreeMap<String, TreeMap<Integer, Long>> committed = new TreeMap<>();
        for (Struct topic : fetched.get(OffsetFetchResponse.TOPICS)) {
            for (Struct partition : topic.get(OffsetFetchResponse.OffsetFetchResponseTopic.PARTITIONS)) {
                committed.computeIfAbsent(topic.get(OffsetFetchResponse.OffsetFetchResponseTopic.NAME),
                        t -> new TreeMap<>()).put(
                        partition.get(OffsetFetchResponse.OffsetFetchResponsePartition.PARTITION_INDEX),
                        partition.get(OffsetFetchResponse.OffsetFetchResponsePartition.COMMITTED_OFFSET));
            }
        }
        if (committed.isEmpty()) {
            out.println("Group " + groupId + " has no committed offsets.");
            return true;
        }
        Map<String, Map<Integer, Long>> logEnds = logEndOffsets(admin, coordinator, committed, err);
        boolean complete = true;
        out.printf("%n%-30s %-30s %-10s %-15s %-15s %s%n", "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                "LOG-END-OFFSET", "LAG");
        for (Map.Entry<String, TreeMap<Integer, Long>> topic : committed.entrySet()) {
            for (Map.Entry<Integer, Long> partition : topic.getValue().entrySet()) {
                long logEnd = logEnds.getOrDefault(topic.getKey(), Map.of()).getOrDefault(partition.getKey(), -1L);
                complete &= logEnd >= 0;
                Row row = new Row(topic.getKey(), partition.getKey(), partition.getValue(), logEnd);
                out.printf("%-30s %-30s %-10d %-15s %-15s %s%n", groupId, row.topic(), row.partition(),
                        row.committed() < 0 ? "-" : Long.toString(row.committed()),
                        row.logEnd() < 0 ? "-" : Long.toString(row.logEnd()), row.lag());
            }
        }
        return complete;
    }

    /** The log end offset of each partition, asked of its leader; partitions whose leader did not answer are absent. */
    private static Map<String, Map<Integer, Long>> logEndOffsets(AdminOptions admin, AdminConnection any,
            TreeMap<String, TreeMap<Integer, Long>> partitions, PrintWriter err) throws IOException {
        Struct metadata = ClusterView.metadata(any, new ArrayList<>(partitions.keySet()));
        Map<Integer, Struct> brokers = new HashMap<>();
        for (Struct broker : ClusterView.brokers(metadata)) {
            brokers.put(broker.get(MetadataResponse.MetadataResponseBroker.NODE_ID), broker);
        }
        // Leader id -> topic -> partitions it leads.
        Map<Integer, Map<String, List<Integer>>> byLeader = new TreeMap<>();
        for (Struct topic : metadata.get(MetadataResponse.TOPICS)) {
            String name = topic.get(MetadataResponse.MetadataResponseTopic.NAME);
            for (Struct partition : topic.get(MetadataResponse.MetadataResponseTopic.PARTITIONS)) {
                int index = partition.get(MetadataResponse.MetadataResponsePartition.PARTITION_INDEX);
                if (partitions.getOrDefault(name, new TreeMap<>()).containsKey(index)) {
                    byLeader.computeIfAbsent(partition.get(MetadataResponse.MetadataResponsePartition.LEADER_ID),
                            l -> new TreeMap<>()).computeIfAbsent(name, t -> new ArrayList<>()).add(index);
                }
            }
        }
        Map<String, Map<Integer, Long>> logEnds = new HashMap<>();
        for (Map.Entry<Integer, Map<String, List<Integer>>> leader : byLeader.entrySet()) {
            Struct broker = brokers.get(leader.getKey());
            if (broker == null) {
                err.println("cairn: no leader for " + leader.getValue() + " (leader id " + leader.getKey() + ")");
                continue;
            }
            String host = broker.get(MetadataResponse.MetadataResponseBroker.HOST);
            int port = broker.get(MetadataResponse.MetadataResponseBroker.PORT);
            try (AdminConnection connection = admin.connect(host, port)) {
                Struct response = connection.send(ApiKey.LIST_OFFSETS, listLatest(leader.getValue()));
                for (Struct topic : response.get(ListOffsetsResponse.TOPICS)) {
                    String name = topic.get(ListOffsetsResponse.ListOffsetsTopicResponse.NAME);
                    for (Struct partition : topic.get(ListOffsetsResponse.ListOffsetsTopicResponse.PARTITIONS)) {
                        if (partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.ERROR_CODE) == 0) {
                            logEnds.computeIfAbsent(name, t -> new HashMap<>()).put(
                                    partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.PARTITION_INDEX),
                                    partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.OFFSET));
                        }
                    }
                }
            } catch (IOException e) {
                err.println("cairn: broker " + host + ":" + port + " is unreachable: " + e.getMessage());
            }
        }
        return logEnds;
    }

    private static Struct listLatest(Map<String, List<Integer>> partitions) {
        List<Struct> topics = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> topic : partitions.entrySet()) {
            List<Struct> indexes = new ArrayList<>();
            for (int index : topic.getValue()) {
                indexes.add(new Struct(ListOffsetsRequest.ListOffsetsPartition.SCHEMA)
                        .set(ListOffsetsRequest.ListOffsetsPartition.PARTITION_INDEX, index)
                        .set(ListOffsetsRequest.ListOffsetsPartition.TIMESTAMP, LATEST));
            }
            topics.add(new Struct(ListOffsetsRequest.ListOffsetsTopic.SCHEMA)
                    .set(ListOffsetsRequest.ListOffsetsTopic.NAME, topic.getKey())
                    .set(ListOffsetsRequest.ListOffsetsTopic.PARTITIONS, indexes));
        }
        return new Struct(ListOffsetsRequest.SCHEMA).set(ListOffsetsRequest.REPLICA_ID, -1)
                .set(ListOffsetsRequest.ISOLATION_LEVEL, (byte) 0).set(ListOffsetsRequest.TOPICS, topics);
    }
}
