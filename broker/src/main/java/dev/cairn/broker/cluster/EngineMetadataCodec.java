package dev.cairn.broker.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The metadata snapshot's last section, what Cairn's own Raft engine needs: the next partition Raft group id, each
 * topic's group ids, and each broker's engine address. {@link MetadataCodec} writes it after the dynamic broker
 * defaults; snapshots from before it end there, and decode with unnumbered topics, no engine addresses and
 * {@link MetadataImage#RAFT_GROUP_ID_MIN} as the next id.
 *
 * <pre>
 * long  nextRaftGroupId
 * int   numbered topic count, then per topic by name: UTF name, int partition count, that many int group ids
 * int   engine broker count, then per broker by node id: int node id, UTF engine address
 * </pre>
 *
 * Topics without ids and brokers without an engine address are left out. Decoding refuses a section that does not fit
 * the image read before it: an unknown or repeated topic or broker, a group id count other than the topic's partition
 * count, or a group id outside [{@link MetadataImage#RAFT_GROUP_ID_MIN}, nextRaftGroupId) or repeated.
 */
final class EngineMetadataCodec {

    private EngineMetadataCodec() {
    }

    static void write(DataOutputStream out, MetadataImage image) throws IOException {
        out.writeLong(image.nextRaftGroupId());
        List<TopicInfo> numbered = image.topics().values().stream().filter(t -> !t.raftGroups().isEmpty()).toList();
        out.writeInt(numbered.size());
        for (TopicInfo topic : numbered) {
            out.writeUTF(topic.name());
            out.writeInt(topic.raftGroups().size());
            for (int raftGroup : topic.raftGroups()) {
                out.writeInt(raftGroup);
            }
        }
        List<BrokerInfo> engines = image.brokers().values().stream().filter(b -> b.engineAddress() != null).toList();
        out.writeInt(engines.size());
        for (BrokerInfo broker : engines) {
            out.writeInt(broker.nodeId());
            out.writeUTF(broker.engineAddress());
        }
    }

    /** {@code image} with the section's ids and addresses; {@code image} itself when the snapshot ends before it. */
    static MetadataImage read(DataInputStream in, MetadataImage image) throws IOException {
        if (in.available() == 0) {
            return image;
        }
        long nextRaftGroupId = in.readLong();
        long nextMax = MetadataImage.RAFT_GROUP_ID_MAX + 1L;
        if (nextRaftGroupId < MetadataImage.RAFT_GROUP_ID_MIN || nextRaftGroupId > nextMax) {
            throw new IOException("next Raft group id " + nextRaftGroupId + " outside ["
                    + MetadataImage.RAFT_GROUP_ID_MIN + ", " + nextMax + "]");
        }
        Map<String, TopicInfo> topics = new TreeMap<>(image.topics());
        Set<String> numbered = new HashSet<>();
        Set<Integer> seen = new HashSet<>();
        int topicCount = MetadataCodec.readCount(in);
        for (int i = 0; i < topicCount; i++) {
            String name = in.readUTF();
            TopicInfo topic = topics.get(name);
            if (topic == null || !numbered.add(name)) {
                throw new IOException("Raft group ids for " + (topic == null ? "unknown" : "repeated") + " topic "
                        + name);
            }
            int count = MetadataCodec.readCount(in);
            if (count != topic.partitionCount()) {
                throw new IOException("topic " + name + " has " + topic.partitionCount() + " partitions, not " + count);
            }
            Integer[] raftGroups = new Integer[count];
            for (int p = 0; p < count; p++) {
                raftGroups[p] = readRaftGroup(in, nextRaftGroupId, seen);
            }
            topics.put(name, topic.withRaftGroups(List.of(raftGroups)));
        }
        Map<Integer, BrokerInfo> brokers = new TreeMap<>(image.brokers());
        Set<Integer> addressed = new HashSet<>();
        int brokerCount = MetadataCodec.readCount(in);
        for (int i = 0; i < brokerCount; i++) {
            int nodeId = in.readInt();
            BrokerInfo broker = brokers.get(nodeId);
            if (broker == null || !addressed.add(nodeId)) {
                throw new IOException("engine address for " + (broker == null ? "unknown" : "repeated") + " broker "
                        + nodeId);
            }
            brokers.put(nodeId, broker.withEngineAddress(in.readUTF()));
        }
        return image.with(image.appliedRaftIndex(), brokers, image.topics(), image.nextProducerId(),
                image.partitionStates(), image.deadBrokers()).withTopics(image.appliedRaftIndex(), topics,
                nextRaftGroupId);
    }

    private static int readRaftGroup(DataInputStream in, long nextRaftGroupId, Set<Integer> seen) throws IOException {
        int raftGroup = in.readInt();
        if (raftGroup < MetadataImage.RAFT_GROUP_ID_MIN || raftGroup >= nextRaftGroupId) {
            throw new IOException("Raft group id " + raftGroup + " outside [" + MetadataImage.RAFT_GROUP_ID_MIN + ", "
                    + nextRaftGroupId + ")");
        }
        if (!seen.add(raftGroup)) {
            throw new IOException("Raft group id " + raftGroup + " held by two partitions");
        }
        return raftGroup;
    }
}
