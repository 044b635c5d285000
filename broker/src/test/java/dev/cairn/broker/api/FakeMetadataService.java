package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The metadata group without Raft: commands go straight to the real deterministic core, {@link ClusterMetadata},
 * in submission order. Tests set which node is the controller and which is local, and see every command.
 */
final class FakeMetadataService implements MetadataService {
    private final ClusterMetadata core;
    private final List<MetadataCommand> submitted = new ArrayList<>();
    private long raftIndex;
    private int controllerId = 1;
    private int localNodeId = 1;

    FakeMetadataService() {
        this(image -> { });
    }

    FakeMetadataService(Consumer<MetadataImage> onChange) {
        this.core = new ClusterMetadata(change -> onChange.accept(change.current()));
    }

    FakeMetadataService withBrokers(int... nodeIds) {
        for (int nodeId : nodeIds) {
            core.apply(++raftIndex, new MetadataCommand.RegisterBroker(
                    new BrokerInfo(nodeId, "broker" + nodeId + ".test", 9090 + nodeId, "raft" + nodeId + ":9093")));
        }
        return this;
    }

    /** Creates a topic directly in the core, replicas on the given broker, without recording a command. */
    FakeMetadataService withTopic(String name, int partitions, int brokerId) {
        return withTopic(name, partitions, brokerId, java.util.Map.of());
    }

    /** As {@link #withTopic(String, int, int)}, with topic-level configs. */
    FakeMetadataService withTopic(String name, int partitions, int brokerId, java.util.Map<String, String> configs) {
        List<List<Integer>> replicas = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            replicas.add(List.of(brokerId));
        }
        core.apply(++raftIndex, new MetadataCommand.CreateTopic(new dev.cairn.broker.cluster.TopicInfo(name,
                UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)), replicas,
                configs)));
        return this;
    }

    void setControllerId(int nodeId) {
        controllerId = nodeId;
    }

    void setLocalNodeId(int nodeId) {
        localNodeId = nodeId;
    }

    List<MetadataCommand> submitted() {
        return submitted;
    }

    @Override
    public MetadataImage image() {
        return core.image();
    }

    @Override
    public synchronized CompletableFuture<MetadataResult> submit(MetadataCommand command) {
        submitted.add(command);
        return CompletableFuture.completedFuture(core.apply(++raftIndex, command));
    }

    @Override
    public int controllerId() {
        return controllerId;
    }

    @Override
    public int localNodeId() {
        return localNodeId;
    }
}
