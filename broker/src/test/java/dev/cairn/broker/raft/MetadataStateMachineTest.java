package dev.cairn.broker.raft;

import static dev.cairn.broker.raft.RaftHostTest.freePort;
import static dev.cairn.broker.raft.RaftHostTest.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.MetadataCodec;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.TopicInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The metadata group survives a restart through snapshot plus Raft log replay. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetadataStateMachineTest {
    private static final RaftGroupId GROUP = RaftGroupId.valueOf(PartitionGroups.METADATA_GROUP_ID);

    @TempDir
    Path dir;

    private RaftHost start(int port, ClusterMetadata metadata) throws IOException {
        RatisSettings settings = RatisSettings.defaults(dir.toFile(), "127.0.0.1", port).withSnapshotThreshold(20);
        RaftHost host = new RaftHost("1", settings, groupId -> new MetadataStateMachine(metadata, index -> { }));
        host.start();
        host.addGroup(GROUP, List.of(RaftHost.peer("1", "127.0.0.1:" + port)));
        return host;
    }

    private static MetadataResult submit(RaftHost host, MetadataCommand command) throws Exception {
        SubmitResult.Applied applied = assertInstanceOf(SubmitResult.Applied.class,
                host.submit(GROUP, ByteBuffer.wrap(MetadataCodec.encode(command))).get(30, TimeUnit.SECONDS));
        return MetadataCodec.decodeResult(applied.reply());
    }

    @Test
    void stateSurvivesRestartThroughSnapshotAndReplay() throws Exception {
        int port = freePort();
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        RaftHost host = start(port, metadata);
        waitFor(() -> host.role(GROUP).map(GroupRole::isLeader).orElse(false), "a leader");
        submit(host, new MetadataCommand.RegisterBroker(new BrokerInfo(1, "127.0.0.1", 9092, "127.0.0.1:" + port)));
        // 45 topics: past the snapshot threshold twice, so the restart loads a snapshot and replays the rest.
        for (int i = 0; i < 45; i++) {
            assertEquals(MetadataResult.OK, submit(host, new MetadataCommand.CreateTopic(new TopicInfo("t" + i,
                    UUID.randomUUID(), List.of(List.of(1)), Map.of()))));
        }
        MetadataResult.ProducerIds ids = assertInstanceOf(MetadataResult.ProducerIds.class,
                submit(host, new MetadataCommand.AllocateProducerIds(1)));
        host.close();
        try (var files = java.nio.file.Files.walk(dir)) {
            long snapshots = files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+")).count();
            org.junit.jupiter.api.Assertions.assertTrue(snapshots >= 1, "a snapshot was taken before the restart");
        }

        ClusterMetadata reloaded = new ClusterMetadata(change -> { });
        RaftHost restarted = start(port, reloaded);
        try {
            waitFor(() -> reloaded.image().topics().size() == 45, "45 topics after restart");
            assertEquals(metadata.image().topics(), reloaded.image().topics());
            assertEquals(metadata.image().brokers(), reloaded.image().brokers());
            waitFor(() -> restarted.role(GROUP).map(GroupRole::isLeader).orElse(false), "a leader after restart");
            MetadataResult.ProducerIds next = assertInstanceOf(MetadataResult.ProducerIds.class,
                    submit(restarted, new MetadataCommand.AllocateProducerIds(1)));
            assertEquals(ids.firstProducerId() + ids.count(), next.firstProducerId());
        } finally {
            restarted.close();
        }
    }
}
