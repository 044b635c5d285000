package dev.cairn.broker.cluster;

import dev.cairn.broker.cluster.MetadataCommand.AddPartitions;
import dev.cairn.broker.cluster.MetadataCommand.AllocateProducerIds;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.DeleteTopic;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import dev.cairn.protocol.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Bytes of metadata commands, results and snapshots. Every encoding starts with a one-byte format version so
 * a later Cairn can read what an earlier one wrote to the Raft log. Layouts use Java's DataOutput encodings
 * (big-endian ints, modified-UTF-8 strings with a 16-bit length).
 */
public final class MetadataCodec {
    static final byte FORMAT_VERSION = 1;
    private static final byte REGISTER_BROKER = 1;
    private static final byte CREATE_TOPIC = 2;
    private static final byte DELETE_TOPIC = 3;
    private static final byte ALLOCATE_PRODUCER_IDS = 4;
    private static final byte UPDATE_PARTITION_STATE = 5;
    private static final byte UPDATE_DEAD_BROKERS = 6;
    /** Added after format version 1 was in use: a new command type, so existing logs and snapshots still read. */
    private static final byte ADD_PARTITIONS = 7;
    /** Added after format version 1 was in use, like ADD_PARTITIONS. */
    private static final byte PROPOSE_CLUSTER_ID = 8;
    /** Added later, like ADD_PARTITIONS. */
    private static final byte ALTER_SCRAM_CREDENTIALS = 9;
    private static final byte ALTER_ACLS = 10;
    private static final byte ALTER_TOPIC_CONFIGS = 11;
    /** RegisterBroker with the broker's listeners; type 1, without them, is still read. */
    private static final byte REGISTER_BROKER_WITH_LISTENERS = 12;
    private static final byte REASSIGN_PARTITION = 13;
    private static final byte COMPLETE_REASSIGNMENT = 14;
    private static final byte ALTER_BROKER_DEFAULTS = 15;
    /**
     * RegisterBroker with the broker's listeners and its Cairn Raft engine address; a broker without the engine is
     * still written as type 12 (or 1), as before.
     */
    private static final byte REGISTER_BROKER_WITH_ENGINE = 16;
    private static final byte RESULT_OK = 1;
    private static final byte RESULT_REJECTED = 2;
    private static final byte RESULT_PRODUCER_IDS = 3;
    /** Bounds on decoded counts: a corrupt entry must fail cleanly, not allocate wildly. */
    private static final int DECODED_COUNT_MAX = 1_000_000;

    private MetadataCodec() {
    }

    public static byte[] encode(MetadataCommand command) {
        return write(out -> {
            if (command instanceof RegisterBroker r && r.broker().engineAddress() != null) {
                out.writeByte(REGISTER_BROKER_WITH_ENGINE);
                writeBroker(out, r.broker());
                writeEndpoints(out, r.broker().endpoints());
                out.writeUTF(r.broker().engineAddress());
            } else if (command instanceof RegisterBroker r && r.broker().endpoints().isEmpty()) {
                out.writeByte(REGISTER_BROKER);
                writeBroker(out, r.broker());
            } else if (command instanceof RegisterBroker r) {
                out.writeByte(REGISTER_BROKER_WITH_LISTENERS);
                writeBroker(out, r.broker());
                writeEndpoints(out, r.broker().endpoints());
            } else if (command instanceof CreateTopic c) {
                out.writeByte(CREATE_TOPIC);
                writeTopic(out, c.topic());
            } else if (command instanceof DeleteTopic d) {
                out.writeByte(DELETE_TOPIC);
                out.writeUTF(d.name());
            } else if (command instanceof AddPartitions a) {
                out.writeByte(ADD_PARTITIONS);
                out.writeUTF(a.topic());
                out.writeLong(a.topicId().getMostSignificantBits());
                out.writeLong(a.topicId().getLeastSignificantBits());
                out.writeInt(a.firstPartition());
                writeReplicas(out, a.replicas());
            } else if (command instanceof MetadataCommand.ProposeClusterId p) {
                out.writeByte(PROPOSE_CLUSTER_ID);
                out.writeUTF(p.clusterId());
            } else if (command instanceof AllocateProducerIds a) {
                out.writeByte(ALLOCATE_PRODUCER_IDS);
                out.writeInt(a.nodeId());
            } else if (command instanceof MetadataCommand.UpdateDeadBrokers u) {
                out.writeByte(UPDATE_DEAD_BROKERS);
                writeIntSet(out, u.deadBrokers());
            } else if (command instanceof MetadataCommand.AlterScramCredentials a) {
                out.writeByte(ALTER_SCRAM_CREDENTIALS);
                out.writeInt(a.deletions().size());
                for (MetadataCommand.ScramDeletion d : a.deletions()) {
                    out.writeUTF(d.user());
                    out.writeByte(d.mechanism());
                }
                out.writeInt(a.upsertions().size());
                for (MetadataCommand.ScramUpsertion u : a.upsertions()) {
                    writeCredential(out, u.user(), u.mechanism(), u.credential());
                }
            } else if (command instanceof MetadataCommand.AlterTopicConfigs a) {
                out.writeByte(ALTER_TOPIC_CONFIGS);
                out.writeUTF(a.topic());
                out.writeLong(a.topicId().getMostSignificantBits());
                out.writeLong(a.topicId().getLeastSignificantBits());
                out.writeBoolean(a.replace());
                out.writeInt(a.set().size());
                for (Map.Entry<String, String> e : new TreeMap<>(a.set()).entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeUTF(e.getValue());
                }
                out.writeInt(a.delete().size());
                for (String name : new java.util.TreeSet<>(a.delete())) {
                    out.writeUTF(name);
                }
            } else if (command instanceof MetadataCommand.AlterAcls a) {
                out.writeByte(ALTER_ACLS);
                writeBlobs(out, a.removals());
                writeBlobs(out, a.additions());
            } else if (command instanceof MetadataCommand.AlterBrokerDefaults a) {
                out.writeByte(ALTER_BROKER_DEFAULTS);
                out.writeBoolean(a.replace());
                writeStringMap(out, a.set());
                writeStringMap(out, a.delete().stream().collect(java.util.stream.Collectors.toMap(n -> n, n -> "")));
            } else if (command instanceof MetadataCommand.ReassignPartition r) {
                out.writeByte(REASSIGN_PARTITION);
                writePartitionReplicas(out, r.topic(), r.topicId(), r.partition(), r.target());
            } else if (command instanceof MetadataCommand.CompleteReassignment c) {
                out.writeByte(COMPLETE_REASSIGNMENT);
                writePartitionReplicas(out, c.topic(), c.topicId(), c.partition(), c.target());
            } else if (command instanceof MetadataCommand.UpdatePartitionState u) {
                out.writeByte(UPDATE_PARTITION_STATE);
                out.writeLong(u.topicId().getMostSignificantBits());
                out.writeLong(u.topicId().getLeastSignificantBits());
                out.writeInt(u.partition());
                writeState(out, u.state());
            } else {
                throw new IllegalArgumentException("unknown metadata command " + command);
            }
        });
    }

    public static MetadataCommand decodeCommand(ByteBuffer bytes) {
        return read(bytes, in -> {
            byte type = in.readByte();
            return switch (type) {
                case REGISTER_BROKER -> new RegisterBroker(readBroker(in));
                case REGISTER_BROKER_WITH_LISTENERS -> new RegisterBroker(withEndpoints(readBroker(in),
                        readEndpoints(in)));
                case REGISTER_BROKER_WITH_ENGINE -> new RegisterBroker(withEndpoints(readBroker(in),
                        readEndpoints(in)).withEngineAddress(in.readUTF()));
                case CREATE_TOPIC -> new CreateTopic(readTopic(in));
                case DELETE_TOPIC -> new DeleteTopic(in.readUTF());
                case ALLOCATE_PRODUCER_IDS -> new AllocateProducerIds(in.readInt());
                case PROPOSE_CLUSTER_ID -> new MetadataCommand.ProposeClusterId(in.readUTF());
                case ADD_PARTITIONS -> new AddPartitions(in.readUTF(), new UUID(in.readLong(), in.readLong()),
                        in.readInt(), readReplicas(in));
                case UPDATE_DEAD_BROKERS -> new MetadataCommand.UpdateDeadBrokers(readIntSet(in));
                case UPDATE_PARTITION_STATE -> new MetadataCommand.UpdatePartitionState(
                        new UUID(in.readLong(), in.readLong()), in.readInt(), readState(in));
                case ALTER_SCRAM_CREDENTIALS -> readAlterScram(in);
                case ALTER_ACLS -> new MetadataCommand.AlterAcls(readBlobs(in), readBlobs(in));
                case ALTER_TOPIC_CONFIGS -> readAlterTopicConfigs(in);
                case ALTER_BROKER_DEFAULTS -> new MetadataCommand.AlterBrokerDefaults(in.readBoolean(),
                        readStringMap(in), readStringMap(in).keySet());
                case REASSIGN_PARTITION -> new MetadataCommand.ReassignPartition(in.readUTF(),
                        new UUID(in.readLong(), in.readLong()), in.readInt(), readReplicaList(in));
                case COMPLETE_REASSIGNMENT -> new MetadataCommand.CompleteReassignment(in.readUTF(),
                        new UUID(in.readLong(), in.readLong()), in.readInt(), readReplicaList(in));
                default -> throw new IOException("unknown metadata command type " + type);
            };
        });
    }

    private static MetadataCommand readAlterTopicConfigs(DataInputStream in) throws IOException {
        String topic = in.readUTF();
        UUID topicId = new UUID(in.readLong(), in.readLong());
        boolean replace = in.readBoolean();
        int setCount = readCount(in);
        Map<String, String> set = new TreeMap<>();
        for (int i = 0; i < setCount; i++) {
            set.put(in.readUTF(), in.readUTF());
        }
        int deleteCount = readCount(in);
        java.util.Set<String> delete = new java.util.TreeSet<>();
        for (int i = 0; i < deleteCount; i++) {
            delete.add(in.readUTF());
        }
        return new MetadataCommand.AlterTopicConfigs(topic, topicId, replace, set, delete);
    }

    private static MetadataCommand readAlterScram(DataInputStream in) throws IOException {
        int deletionCount = readCount(in);
        List<MetadataCommand.ScramDeletion> deletions = new ArrayList<>();
        for (int i = 0; i < deletionCount; i++) {
            deletions.add(new MetadataCommand.ScramDeletion(in.readUTF(), in.readByte()));
        }
        int upsertionCount = readCount(in);
        List<MetadataCommand.ScramUpsertion> upsertions = new ArrayList<>();
        for (int i = 0; i < upsertionCount; i++) {
            upsertions.add(readCredential(in));
        }
        return new MetadataCommand.AlterScramCredentials(deletions, upsertions);
    }

    private static void writeBlobs(DataOutputStream out, List<byte[]> blobs) throws IOException {
        out.writeInt(blobs.size());
        for (byte[] blob : blobs) {
            out.writeShort(blob.length);
            out.write(blob);
        }
    }

    private static List<byte[]> readBlobs(DataInputStream in) throws IOException {
        int count = readCount(in);
        List<byte[]> blobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int length = in.readUnsignedShort();
            if (length > AclStore.BINDING_BYTES_MAX) {
                throw new IOException("ACL binding of " + length + " bytes exceeds " + AclStore.BINDING_BYTES_MAX);
            }
            byte[] blob = new byte[length];
            in.readFully(blob);
            blobs.add(blob);
        }
        return blobs;
    }

    private static void writeCredential(DataOutputStream out, String user, byte mechanism, byte[] credential)
            throws IOException {
        out.writeUTF(user);
        out.writeByte(mechanism);
        out.writeShort(credential.length);
        out.write(credential);
    }

    private static MetadataCommand.ScramUpsertion readCredential(DataInputStream in) throws IOException {
        String user = in.readUTF();
        byte mechanism = in.readByte();
        int length = in.readUnsignedShort();
        if (length > ScramCredentials.CREDENTIAL_BYTES_MAX) {
            throw new IOException("SCRAM credential of " + length + " bytes exceeds "
                    + ScramCredentials.CREDENTIAL_BYTES_MAX);
        }
        byte[] credential = new byte[length];
        in.readFully(credential);
        return new MetadataCommand.ScramUpsertion(user, mechanism, credential);
    }

    public static byte[] encode(MetadataResult result) {
        return write(out -> {
            if (result instanceof MetadataResult.Ok) {
                out.writeByte(RESULT_OK);
            } else if (result instanceof MetadataResult.Rejected r) {
                out.writeByte(RESULT_REJECTED);
                out.writeShort(r.error().code());
                out.writeUTF(r.message());
            } else if (result instanceof MetadataResult.ProducerIds p) {
                out.writeByte(RESULT_PRODUCER_IDS);
                out.writeLong(p.firstProducerId());
                out.writeInt(p.count());
            } else {
                throw new IllegalArgumentException("unknown metadata result " + result);
            }
        });
    }

    public static MetadataResult decodeResult(ByteBuffer bytes) {
        return read(bytes, in -> {
            byte type = in.readByte();
            return switch (type) {
                case RESULT_OK -> MetadataResult.OK;
                case RESULT_REJECTED -> new MetadataResult.Rejected(ErrorCode.forCode(in.readShort()), in.readUTF());
                case RESULT_PRODUCER_IDS -> new MetadataResult.ProducerIds(in.readLong(), in.readInt());
                default -> throw new IOException("unknown metadata result type " + type);
            };
        });
    }

    public static byte[] encodeSnapshot(MetadataImage image) {
        return write(out -> {
            out.writeLong(image.appliedRaftIndex());
            out.writeLong(image.nextProducerId());
            out.writeInt(image.brokers().size());
            for (BrokerInfo broker : image.brokers().values()) {
                writeBroker(out, broker);
            }
            out.writeInt(image.topics().size());
            for (TopicInfo topic : image.topics().values()) {
                writeTopic(out, topic);
            }
            out.writeInt(image.partitionStates().size());
            for (Map.Entry<TopicPartition, PartitionState> e : sortedStates(image)) {
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().partition());
                writeState(out, e.getValue());
            }
            writeIntSet(out, image.deadBrokers());
            // Appended later: snapshots written before the cluster id was agreed end after the dead brokers.
            out.writeBoolean(image.clusterId() != null);
            if (image.clusterId() != null) {
                out.writeUTF(image.clusterId());
            }
            // Appended later still: SCRAM credentials. Older snapshots end before them (none).
            out.writeInt(image.scramCredentials().size());
            java.io.IOException[] failure = new java.io.IOException[1];
            image.scramCredentials().forEach((user, mechanism, credential) -> {
                try {
                    writeCredential(out, user, mechanism, credential);
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            // And then ACL bindings; older snapshots end before them (none).
            writeBlobs(out, image.acls().encoded());
            // And then each broker's listeners; older snapshots end before them (brokers without listeners).
            out.writeInt(image.brokers().size());
            for (BrokerInfo broker : image.brokers().values()) {
                out.writeInt(broker.nodeId());
                writeEndpoints(out, broker.endpoints());
            }
            // And then reassignments in progress; older snapshots end before them (none).
            List<Map.Entry<TopicPartition, PartitionReassignment>> reassignments =
                    new ArrayList<>(image.reassignments().entrySet());
            reassignments.sort(Map.Entry.comparingByKey(java.util.Comparator.comparing(TopicPartition::topic)
                    .thenComparingInt(TopicPartition::partition)));
            out.writeInt(reassignments.size());
            for (Map.Entry<TopicPartition, PartitionReassignment> e : reassignments) {
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().partition());
                writeReplicas(out, List.of(e.getValue().target(), e.getValue().original()));
            }
            // And then the dynamic broker defaults; older snapshots end before them (none).
            writeStringMap(out, image.brokerDefaults());
            // And then Raft group ids and engine addresses; older snapshots end before them (EngineMetadataCodec).
            EngineMetadataCodec.write(out, image);
        });
    }

    public static MetadataImage decodeSnapshot(ByteBuffer bytes) {
        return read(bytes, in -> {
            long appliedRaftIndex = in.readLong();
            long nextProducerId = in.readLong();
            Map<Integer, BrokerInfo> brokers = new TreeMap<>();
            int brokerCount = readCount(in);
            for (int i = 0; i < brokerCount; i++) {
                BrokerInfo broker = readBroker(in);
                brokers.put(broker.nodeId(), broker);
            }
            Map<String, TopicInfo> topics = new TreeMap<>();
            int topicCount = readCount(in);
            for (int i = 0; i < topicCount; i++) {
                TopicInfo topic = readTopic(in);
                topics.put(topic.name(), topic);
            }
            Map<TopicPartition, PartitionState> states = new java.util.HashMap<>();
            int stateCount = readCount(in);
            for (int i = 0; i < stateCount; i++) {
                TopicPartition tp = new TopicPartition(in.readUTF(), in.readInt());
                states.put(tp, readState(in));
            }
            java.util.Set<Integer> dead = readIntSet(in);
            String clusterId = in.available() > 0 && in.readBoolean() ? in.readUTF() : null;
            int credentialCount = in.available() > 0 ? readCount(in) : 0;
            List<MetadataCommand.ScramUpsertion> entries = new ArrayList<>();
            for (int i = 0; i < credentialCount; i++) {
                entries.add(readCredential(in));
            }
            ScramCredentials credentials = ScramCredentials.of(entries);
            AclStore acls = in.available() > 0 ? AclStore.of(readBlobs(in)) : AclStore.EMPTY;
            int listedBrokers = in.available() > 0 ? readCount(in) : 0;
            for (int i = 0; i < listedBrokers; i++) {
                int nodeId = in.readInt();
                List<BrokerInfo.Endpoint> endpoints = readEndpoints(in);
                BrokerInfo broker = brokers.get(nodeId);
                if (broker != null) {
                    brokers.put(nodeId, withEndpoints(broker, endpoints));
                }
            }
            Map<TopicPartition, PartitionReassignment> reassignments = new java.util.HashMap<>();
            int reassignmentCount = in.available() > 0 ? readCount(in) : 0;
            for (int i = 0; i < reassignmentCount; i++) {
                TopicPartition tp = new TopicPartition(in.readUTF(), in.readInt());
                List<List<Integer>> lists = readReplicas(in);
                if (lists.size() != 2) {
                    throw new IOException("a reassignment holds 2 replica lists, not " + lists.size());
                }
                reassignments.put(tp, new PartitionReassignment(lists.get(0), lists.get(1)));
            }
            MetadataImage image = MetadataImage.EMPTY.with(appliedRaftIndex, brokers, topics, nextProducerId, states,
                    dead).withClusterId(appliedRaftIndex, clusterId).withScramCredentials(appliedRaftIndex, credentials)
                    .withAcls(appliedRaftIndex, acls).withReassignments(appliedRaftIndex, topics, reassignments)
                    .withBrokerDefaults(appliedRaftIndex, in.available() > 0 ? readStringMap(in) : Map.of());
            return EngineMetadataCodec.read(in, image);
        });
    }

    private static List<Map.Entry<TopicPartition, PartitionState>> sortedStates(MetadataImage image) {
        List<Map.Entry<TopicPartition, PartitionState>> entries = new ArrayList<>(image.partitionStates().entrySet());
        entries.sort(Map.Entry.comparingByKey(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)));
        return entries;
    }

    private static void writeIntSet(DataOutputStream out, java.util.Set<Integer> values) throws IOException {
        out.writeInt(values.size());
        for (int value : new java.util.TreeSet<>(values)) {
            out.writeInt(value);
        }
    }

    private static java.util.Set<Integer> readIntSet(DataInputStream in) throws IOException {
        int count = readCount(in);
        java.util.Set<Integer> values = new java.util.TreeSet<>();
        for (int i = 0; i < count; i++) {
            values.add(in.readInt());
        }
        return values;
    }

    private static void writeState(DataOutputStream out, PartitionState state) throws IOException {
        out.writeInt(state.leaderId());
        out.writeInt(state.leaderEpoch());
        out.writeInt(state.isr().size());
        for (int replica : state.isr()) {
            out.writeInt(replica);
        }
    }

    private static PartitionState readState(DataInputStream in) throws IOException {
        int leaderId = in.readInt();
        int leaderEpoch = in.readInt();
        int count = readCount(in);
        List<Integer> isr = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            isr.add(in.readInt());
        }
        return new PartitionState(leaderId, leaderEpoch, isr);
    }

    private static void writeBroker(DataOutputStream out, BrokerInfo broker) throws IOException {
        out.writeInt(broker.nodeId());
        out.writeUTF(broker.host());
        out.writeInt(broker.port());
        out.writeUTF(broker.raftAddress());
    }

    private static void writeEndpoints(DataOutputStream out, List<BrokerInfo.Endpoint> endpoints) throws IOException {
        out.writeInt(endpoints.size());
        for (BrokerInfo.Endpoint endpoint : endpoints) {
            out.writeUTF(endpoint.listener());
            out.writeUTF(endpoint.host());
            out.writeInt(endpoint.port());
        }
    }

    private static List<BrokerInfo.Endpoint> readEndpoints(DataInputStream in) throws IOException {
        int count = readCount(in);
        List<BrokerInfo.Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            endpoints.add(new BrokerInfo.Endpoint(in.readUTF(), in.readUTF(), in.readInt()));
        }
        return endpoints;
    }

    private static BrokerInfo withEndpoints(BrokerInfo broker, List<BrokerInfo.Endpoint> endpoints) {
        return new BrokerInfo(broker.nodeId(), broker.host(), broker.port(), broker.raftAddress(), endpoints,
                broker.engineAddress());
    }

    private static BrokerInfo readBroker(DataInputStream in) throws IOException {
        return new BrokerInfo(in.readInt(), in.readUTF(), in.readInt(), in.readUTF());
    }

    /** A partition by topic name, id and index, then one replica list (in {@link #writeReplicas}' layout). */
    private static void writePartitionReplicas(DataOutputStream out, String topic, UUID topicId, int partition,
            List<Integer> replicas) throws IOException {
        out.writeUTF(topic);
        out.writeLong(topicId.getMostSignificantBits());
        out.writeLong(topicId.getLeastSignificantBits());
        out.writeInt(partition);
        writeReplicas(out, List.of(replicas));
    }

    private static void writeTopic(DataOutputStream out, TopicInfo topic) throws IOException {
        out.writeUTF(topic.name());
        out.writeLong(topic.topicId().getMostSignificantBits());
        out.writeLong(topic.topicId().getLeastSignificantBits());
        writeReplicas(out, topic.replicas());
        out.writeInt(topic.configs().size());
        for (Map.Entry<String, String> e : new TreeMap<>(topic.configs()).entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
        }
    }

    private static TopicInfo readTopic(DataInputStream in) throws IOException {
        String name = in.readUTF();
        UUID topicId = new UUID(in.readLong(), in.readLong());
        List<List<Integer>> replicas = readReplicas(in);
        int configCount = readCount(in);
        Map<String, String> configs = new TreeMap<>();
        for (int i = 0; i < configCount; i++) {
            configs.put(in.readUTF(), in.readUTF());
        }
        return new TopicInfo(name, topicId, replicas, configs);
    }

    /** Per partition in order: its replica count, then the replicas' node ids (a topic's layout since version 1). */
    private static void writeReplicas(DataOutputStream out, List<List<Integer>> replicas) throws IOException {
        out.writeInt(replicas.size());
        for (List<Integer> partition : replicas) {
            out.writeInt(partition.size());
            for (int replica : partition) {
                out.writeInt(replica);
            }
        }
    }

    private static List<List<Integer>> readReplicas(DataInputStream in) throws IOException {
        int partitions = readCount(in);
        List<List<Integer>> replicas = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            int count = readCount(in);
            List<Integer> set = new ArrayList<>(count);
            for (int r = 0; r < count; r++) {
                set.add(in.readInt());
            }
            replicas.add(set);
        }
        return replicas;
    }

    /** A string map, sorted by key so that equal maps encode alike. */
    private static void writeStringMap(DataOutputStream out, Map<String, String> map) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
        }
    }

    private static Map<String, String> readStringMap(DataInputStream in) throws IOException {
        int count = readCount(in);
        Map<String, String> map = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            map.put(in.readUTF(), in.readUTF());
        }
        return map;
    }

    /** One replica list written by {@link #writePartitionReplicas}. */
    private static List<Integer> readReplicaList(DataInputStream in) throws IOException {
        List<List<Integer>> lists = readReplicas(in);
        if (lists.size() != 1) {
            throw new IOException("expected one replica list, not " + lists.size());
        }
        return lists.get(0);
    }

    static int readCount(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > DECODED_COUNT_MAX) {
            throw new IOException("count " + count + " outside [0, " + DECODED_COUNT_MAX + "]");
        }
        return count;
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(ByteBuffer bytes, Reader<T> reader) {
        ByteBuffer view = bytes.duplicate();
        byte[] array = new byte[view.remaining()];
        view.get(array);
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(array))) {
            byte version = in.readByte();
            if (version != FORMAT_VERSION) {
                throw new MetadataFormatException("metadata format version " + version + " is not " + FORMAT_VERSION);
            }
            return reader.read(in);
        } catch (IOException e) {
            throw new MetadataFormatException("malformed metadata bytes: " + e.getMessage());
        }
    }
}
