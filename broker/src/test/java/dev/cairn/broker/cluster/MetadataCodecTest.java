package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Metadata bytes stay readable across Cairn versions: the format is extended by new command types and by sections
 * appended to snapshots, never by changing what an older Cairn wrote (see {@link MetadataCodec}).
 */
class MetadataCodecTest {
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
        // two brokers' (empty) listener lists, and the (empty) reassignment count that later snapshots end with.
        assertEquals(snapshot + "00" + "00000000" + "00000000" + "00000002" + "00000001" + "00000000" + "00000002"
                + "00000000" + "00000000" + "00000000",
                HexFormat.of().formatHex(MetadataCodec.encodeSnapshot(image)));
    }

    private static byte[] hex(String text) {
        return HexFormat.of().parseHex(text);
    }
}
