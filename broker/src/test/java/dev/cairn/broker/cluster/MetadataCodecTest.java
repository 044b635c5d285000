package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.cluster.MetadataCommand.AddPartitions;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Metadata bytes stay readable across Cairn versions: the format is extended by new command types and by sections
 * appended to snapshots, never by changing what an older Cairn wrote (see {@link MetadataCodec}).
 */
class MetadataCodecTest {
    /**
     * Entries written by commit 2660c23, before Raft group ids and engine addresses: ProposeClusterId, a
     * RegisterBroker without listeners (type 1), one with a listener (type 12), CreateTopic "orders" with 2
     * partitions, AddPartitions of a third, CreateTopic "gone", DeleteTopic "gone", AllocateProducerIds, and
     * AlterBrokerDefaults; and the snapshot after them.
     */
    private static final List<String> OLD_COMMANDS = List.of(
            "010800026331",
            "0101000000010002683100002384000768313a39303933",
            "010c000000020002683200002384000768323a39303933000000010005504c41494e0002683200002384",
            "010200066f7264657273000000000000000100000000000000020000000200000002000000010000000200000002000000020000"
                    + "000100000001000c726574656e74696f6e2e6d73000131",
            "010700066f7264657273000000000000000100000000000000020000000200000001000000020000000100000002",
            "01020004676f6e650000000000000003000000000000000400000001000000010000000100000000",
            "01030004676f6e65",
            "010400000001",
            "010f000000000100106c6f672e726574656e74696f6e2e6d7300013500000000");
    private static final String OLD_SNAPSHOT =
            "01000000000000000900000000000003e800000002000000010002683100002384000768313a39303933000000020002"
            + "683200002384000768323a393039330000000100066f7264657273000000000000000100000000000000020000000300"
            + "000002000000010000000200000002000000020000000100000002000000010000000200000001000c726574656e7469"
            + "6f6e2e6d7300013100000000000000000100026331000000000000000000000002000000010000000000000002000000"
            + "010005504c41494e0002683200002384000000000000000100106c6f672e726574656e74696f6e2e6d73000135";
    /** What a snapshot without numbered topics or engine addresses ends with now: next id 1, then two zero counts. */
    private static final String EMPTY_ENGINE_SECTION = "0000000000000001" + "00000000" + "00000000";

    /**
     * Metadata written before AddPartitions existed (format version 1, by commit 881bc99): a CreateTopic entry and
     * a snapshot still decode to what was written, so existing Raft logs and snapshots stay readable.
     */
    @Test
    void entriesAndSnapshotsWrittenBeforeAddPartitionsStillDecode() {
        TopicInfo orders = new TopicInfo("orders", new UUID(1, 2), List.of(List.of(1, 2), List.of(2, 1)),
                Map.of("retention.ms", "1"));
        String command = "010200066f7264657273000000000000000100000000000000020000000200000002000000010000000200000002"
                + "000000020000000100000001000c726574656e74696f6e2e6d73000131";
        assertEquals(new CreateTopic(orders), MetadataCodec.decodeCommand(ByteBuffer.wrap(hex(command))));
        assertEquals(command, HexFormat.of().formatHex(MetadataCodec.encode(new CreateTopic(orders))));
        String snapshot = "01000000000000000300000000000000000000000200000001000168000023840006683a39303933000000020002"
                + "683200002384000768323a393039330000000100066f72646572730000000000000001000000000000000200000002"
                + "00000002000000010000000200000002000000020000000100000001000c726574656e74696f6e2e6d7300013100000000"
                + "00000000";
        MetadataImage image = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(hex(snapshot)));
        assertEquals(3, image.appliedRaftIndex());
        assertEquals(List.of(1, 2), List.copyOf(image.brokers().keySet()));
        assertEquals(orders, image.topic("orders").orElseThrow());
        // Written again, it gains the (absent) cluster id flag, the (empty) SCRAM credential and ACL counts, and the
        // two brokers' (empty) listener lists, the (empty) reassignment count and broker defaults, and the engine
        // section (next Raft group id 1, no numbered topics, no engine addresses) that later snapshots end with.
        assertEquals(snapshot + "00" + "00000000" + "00000000" + "00000002" + "00000001" + "00000000" + "00000002"
                + "00000000" + "00000000" + "00000000" + EMPTY_ENGINE_SECTION,
                HexFormat.of().formatHex(MetadataCodec.encodeSnapshot(image)));
    }

    @Test
    void entriesWrittenBeforeRaftGroupIdsDecodeAndEncodeAlike() {
        List<MetadataCommand> decoded = OLD_COMMANDS.stream().map(MetadataCodecTest::command).toList();
        RegisterBroker second = (RegisterBroker) decoded.get(2);
        assertEquals(new BrokerInfo(2, "h2", 9092, "h2:9093", List.of(new BrokerInfo.Endpoint("PLAIN", "h2", 9092))),
                second.broker());
        assertNull(second.broker().engineAddress());
        CreateTopic create = (CreateTopic) decoded.get(3);
        assertEquals(List.of(), create.topic().raftGroups(), "a command never carries Raft group ids");
        for (int i = 0; i < decoded.size(); i++) {
            assertEquals(OLD_COMMANDS.get(i), HexFormat.of().formatHex(MetadataCodec.encode(decoded.get(i))),
                    "a command without engine fields is written as before: " + decoded.get(i));
        }

        // Replayed now, the old log numbers its partitions in apply order; the deleted topic's id stays used.
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        for (int i = 0; i < decoded.size(); i++) {
            metadata.apply(i + 1, decoded.get(i));
        }
        assertEquals(List.of(1, 2, 3), metadata.image().topic("orders").orElseThrow().raftGroups());
        assertEquals(5, metadata.image().nextRaftGroupId());
    }

    @Test
    void aSnapshotWrittenBeforeRaftGroupIdsDecodesWithoutThem() {
        MetadataImage image = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(hex(OLD_SNAPSHOT)));

        assertEquals(9, image.appliedRaftIndex());
        assertEquals(MetadataImage.RAFT_GROUP_ID_MIN, image.nextRaftGroupId());
        TopicInfo orders = image.topic("orders").orElseThrow();
        assertEquals(List.of(List.of(1, 2), List.of(2, 1), List.of(1, 2)), orders.replicas());
        assertEquals(List.of(), orders.raftGroups());
        assertEquals(0, orders.raftGroup(2), "a topic from before ids has none");
        assertNull(image.brokers().get(1).engineAddress());
        assertNull(image.brokers().get(2).engineAddress());
        assertEquals("PLAIN", image.brokers().get(2).endpoints().get(0).listener());
        assertEquals("c1", image.clusterId());
        assertEquals(Map.of("log.retention.ms", "5"), image.brokerDefaults());
        assertEquals(1000, image.nextProducerId());
        assertEquals(OLD_SNAPSHOT + EMPTY_ENGINE_SECTION,
                HexFormat.of().formatHex(MetadataCodec.encodeSnapshot(image)),
                "written again, it gains the engine section and nothing else changes");
    }

    @Test
    void registerBrokerKeepsTheEngineAddress() {
        BrokerInfo plain = new BrokerInfo(1, "h1", 9092, "h1:9093", List.of(), "h1:9094");
        BrokerInfo listeners = new BrokerInfo(2, "h2", 9092, "h2:9093",
                List.of(new BrokerInfo.Endpoint("plain", "h2", 9092)), "h2:9094");
        for (BrokerInfo broker : List.of(plain, listeners)) {
            byte[] encoded = MetadataCodec.encode(new RegisterBroker(broker));
            assertEquals(new RegisterBroker(broker), MetadataCodec.decodeCommand(ByteBuffer.wrap(encoded)));
            assertThrows(MetadataFormatException.class, () -> MetadataCodec.decodeCommand(
                    ByteBuffer.wrap(encoded, 0, encoded.length - 1)), "a truncated engine address");
        }
        assertEquals(16, MetadataCodec.encode(new RegisterBroker(plain))[1], "a new command type");
    }

    @Test
    void aCreateTopicCommandDropsRaftGroupIds() {
        TopicInfo numbered = new TopicInfo("t", new UUID(1, 1), List.of(List.of(1)), Map.of(), List.of(7));
        assertEquals(List.of(), new CreateTopic(numbered).topic().raftGroups());
        TopicInfo unnumbered = numbered.withRaftGroups(List.of());
        assertEquals(HexFormat.of().formatHex(MetadataCodec.encode(new CreateTopic(unnumbered))),
                HexFormat.of().formatHex(MetadataCodec.encode(new CreateTopic(numbered))));
    }

    @Test
    void snapshotsKeepRaftGroupIdsAndEngineAddresses() {
        MetadataImage image = sample();
        MetadataImage restored = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(MetadataCodec.encodeSnapshot(image)));

        assertEquals(image, restored);
        assertEquals(List.of(1, 2, 5), restored.topic("a").orElseThrow().raftGroups());
        assertEquals(List.of(), restored.topic("old").orElseThrow().raftGroups());
        assertEquals(List.of(4), restored.topic("b").orElseThrow().raftGroups());
        assertEquals(6, restored.nextRaftGroupId());
        assertEquals("h1:9094", restored.brokers().get(1).engineAddress());
        assertNull(restored.brokers().get(2).engineAddress());
    }

    /** Decoding the engine section checks it against the image read before it, as the rest of a snapshot is. */
    @Test
    void aCorruptEngineSectionIsRefused() {
        byte[] valid = MetadataCodec.encodeSnapshot(sample());
        // The sample's section: next id (8), numbered count (4), "a" (2 + 1), count (4), 3 ids, "b" (2 + 1), count
        // (4), 1 id, engine count (4), node id (4), "h1:9094" (2 + 7).
        int sectionBytes = 8 + 4 + 3 + 4 + 12 + 3 + 4 + 4 + 4 + 4 + 9;
        byte[] prefix = java.util.Arrays.copyOf(valid, valid.length - sectionBytes);
        assertEquals(sample(), decode(prefix, out -> section(out, 6, List.of(1, 2, 5), List.of(4), 1)));

        assertRefused(prefix, out -> section(out, 0, List.of(), List.of(), 1), "next id below 1");
        assertRefused(prefix, out -> section(out, 1L << 32, List.of(), List.of(), 1), "next id past 2^31");
        assertRefused(prefix, out -> section(out, 5, List.of(1, 2, 5), List.of(4), 1), "an id not below next");
        assertRefused(prefix, out -> section(out, 6, List.of(1, 2, 0), List.of(4), 1), "the metadata group's id");
        assertRefused(prefix, out -> section(out, 6, List.of(1, 2, 4), List.of(4), 1), "an id held twice");
        assertRefused(prefix, out -> section(out, 6, List.of(1, 2), List.of(4), 1), "fewer ids than partitions");
        assertRefused(prefix, out -> section(out, 6, List.of(1, 2, 5), List.of(4), 3), "an unknown broker");
        assertRefused(prefix, out -> out.putLong(6).putInt(Integer.MAX_VALUE), "an unbounded count");
        assertRefused(prefix, out -> out.putLong(6).putInt(1).putShort((short) 1).put((byte) 'x').putInt(0),
                "an unknown topic");
        assertRefused(prefix, out -> out.putLong(6).putInt(1), "a truncated section");
    }

    /** Topic "a" (3 partitions, the third added later), "b", and "old" from before ids; broker 1 runs the engine. */
    private static MetadataImage sample() {
        TopicInfo old = new TopicInfo("old", new UUID(9, 9), List.of(List.of(1)), Map.of());
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        metadata.restore(MetadataImage.EMPTY.withTopics(0, Map.of("old", old), MetadataImage.RAFT_GROUP_ID_MIN));
        List<MetadataCommand> commands = List.of(
                new RegisterBroker(new BrokerInfo(1, "h1", 9092, "h1:9093", List.of(), "h1:9094")),
                new RegisterBroker(new BrokerInfo(2, "h2", 9092, "h2:9093")),
                new CreateTopic(new TopicInfo("a", new UUID(1, 1), List.of(List.of(1), List.of(2)), Map.of())),
                new CreateTopic(new TopicInfo("gone", new UUID(2, 2), List.of(List.of(1)), Map.of())),
                new MetadataCommand.DeleteTopic("gone"),
                new CreateTopic(new TopicInfo("b", new UUID(3, 3), List.of(List.of(2)), Map.of())),
                new AddPartitions("a", new UUID(1, 1), 2, List.of(List.of(2))),
                new AddPartitions("old", new UUID(9, 9), 1, List.of(List.of(2))));
        for (int i = 0; i < commands.size(); i++) {
            metadata.apply(i + 1, commands.get(i));
        }
        return metadata.image();
    }

    private static void section(ByteBuffer out, long next, List<Integer> a, List<Integer> b, int engineNode) {
        out.putLong(next).putInt(2);
        for (Map.Entry<String, List<Integer>> topic : List.of(Map.entry("a", a), Map.entry("b", b))) {
            out.putShort((short) 1).put((byte) topic.getKey().charAt(0)).putInt(topic.getValue().size());
            topic.getValue().forEach(out::putInt);
        }
        out.putInt(1).putInt(engineNode).putShort((short) 7).put("h1:9094".getBytes(StandardCharsets.UTF_8));
    }

    private static MetadataImage decode(byte[] prefix, Consumer<ByteBuffer> section) {
        ByteBuffer bytes = ByteBuffer.allocate(prefix.length + 256).put(prefix);
        section.accept(bytes);
        return MetadataCodec.decodeSnapshot(bytes.flip());
    }

    private static void assertRefused(byte[] prefix, Consumer<ByteBuffer> section, String what) {
        assertThrows(MetadataFormatException.class, () -> decode(prefix, section), what);
    }

    private static MetadataCommand command(String hex) {
        return MetadataCodec.decodeCommand(ByteBuffer.wrap(hex(hex)));
    }

    private static byte[] hex(String text) {
        return HexFormat.of().parseHex(text);
    }
}
