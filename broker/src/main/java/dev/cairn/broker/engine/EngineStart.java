package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.HostPort;
import dev.cairn.broker.config.RaftVoter;
import dev.cairn.broker.engine.rpc.EngineRpc;
import dev.cairn.broker.net.RaftFrameTls;
import dev.cairn.broker.net.RaftFrameTransport;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.FrameCodec;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts {@link EnginePartitions} together: the transport on raft.engine.listener (Raft frames and the leader RPC on
 * the same connections, told apart by their magic), the engine and its log, the hosted groups, the RPC. Other
 * brokers are found through the engine address each registers in metadata.
 */
final class EngineStart {
    private static final Logger LOG = LoggerFactory.getLogger(EngineStart.class);
    /** The engine's log and loop count, under the data directory (Ratis keeps {@code raft/}). */
    static final String ENGINE_DIRECTORY = "raft-engine";
    /** The exit status of a broker whose engine stopped (sysexits' EX_IOERR), as the Maelstrom node uses. */
    static final int EXIT_ENGINE_STOPPED = 74;

    private EngineStart() {
    }

    static EnginePartitions start(BrokerConfig config, EngineGroups.Storage storage, Path dataDir,
            Supplier<MetadataImage> images, Supplier<Optional<MetadataImage>> caughtUpImages,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> submit, RaftFrameTls tls)
            throws IOException, InterruptedException {
        EngineConfig engineConfig = engineConfig(config);
        int nodeId = config.nodeId();
        EngineLeaderships leaderships = new EngineLeaderships(engineConfig.selfId());
        List<Consumer<TopicPartition>> listeners = new CopyOnWriteArrayList<>();
        RaftEngine[] engine = new RaftEngine[1];
        EngineRpc[] rpc = new EngineRpc[1];
        HostPort bind = config.raftEngineListener();
        RaftFrameTransport transport = RaftFrameTransport.start(new InetSocketAddress(bind.host(), bind.port()),
                replica -> engineAddress(images.get(), replica - 1), frame -> {
                    if (EngineRpc.isRpcFrame(frame)) {
                        rpc[0].onFrame(frame);
                    } else {
                        engine[0].deliver(frame);
                    }
                }, 1, tls);
        EngineGroups groups = null;
        EngineForwarding forwarding = new EngineForwarding(nodeId);
        try {
            engine[0] = RaftEngine.start(engineConfig, dataDir.resolve(ENGINE_DIRECTORY), transport, leaderships,
                    cause -> {
                        LOG.error("the Raft engine stopped (its log could not be written, or a partition's state "
                                + "machine failed); stopping the broker so that its partitions lead elsewhere", cause);
                        Runtime.getRuntime().halt(EXIT_ENGINE_STOPPED);
                    });
            groups = new EngineGroups(nodeId, engine[0], transport, new EngineGroupIndex(dataDir), leaderships,
                    storage, tp -> listeners.forEach(listener -> listener.accept(tp)));
            EnginePartitions[] partitions = new EnginePartitions[1];
            rpc[0] = new EngineRpc(nodeId, (node, frame) -> transport.trySend(node + 1, frame),
                    new EngineLeaderSide(() -> partitions[0]), FrameCodec.FRAME_BYTES_MAX);
            groups.copyGapsThrough(new EngineGapCopies(engine[0], engineConfig.selfId(), rpc[0]));
            String address = advertisedHost(config, bind) + ":" + transport.port();
            partitions[0] = new EnginePartitions(nodeId, groups, leaderships, listeners, rpc[0], forwarding, address,
                    images, caughtUpImages, submit);
            groups.createIndexed();
            LOG.info("raft.engine=cairn: Raft frames and the leader RPC on {} ({}), log in {}, fsync before "
                    + "acknowledging: {}", address, tls == null ? "plaintext" : "mutual TLS, raft.ssl.*",
                    dataDir.resolve(ENGINE_DIRECTORY), engineConfig.fsync());
            return partitions[0];
        } catch (IOException | RuntimeException e) {
            forwarding.close();
            if (rpc[0] != null) {
                rpc[0].close();
            }
            if (groups != null) {
                groups.close();
            } else {
                if (engine[0] != null) {
                    engine[0].close();
                }
                transport.close();
            }
            throw e;
        }
    }

    /** Where broker {@code nodeId}'s engine takes frames, as it registered; null while it is not known. */
    /**
     * The host other brokers reach the engine listener on, as registered in metadata: its bind host, or for a
     * wildcard bind (0.0.0.0, ::, as in a container), the host of this broker's raft.voters entry (what the other
     * brokers already reach it by), else raft.listener's host, else its advertised Kafka listener's host.
     */
    static String advertisedHost(BrokerConfig config, HostPort bind) {
        if (!isWildcard(bind.host())) {
            return bind.host();
        }
        for (RaftVoter voter : config.raftVoters()) {
            if (voter.nodeId() == config.nodeId() && !isWildcard(voter.address().host())) {
                return voter.address().host();
            }
        }
        return isWildcard(config.raftListener().host()) ? config.advertisedListener().host()
                : config.raftListener().host();
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty();
    }

    private static InetSocketAddress engineAddress(MetadataImage image, int nodeId) {
        BrokerInfo broker = image.brokers().get(nodeId);
        if (broker == null || broker.engineAddress() == null) {
            return null;
        }
        try {
            HostPort address = HostPort.parse(broker.engineAddress());
            return new InetSocketAddress(address.host(), address.port());
        } catch (ConfigException e) {
            LOG.warn("broker {} registered the engine address '{}', which is not host:port", nodeId,
                    broker.engineAddress());
            return null;
        }
    }

    /**
     * The engine's settings from the broker's: replica id node.id + 1 (the engine's ids start at 1), a loop per core,
     * the log forced before acknowledging exactly when log.flush.interval.messages=1 (otherwise written to the
     * operating system, as the Ratis path does), and partitions applied on a pool beside the loops, so that one
     * partition's slow disk holds up its own group only.
     */
    static EngineConfig engineConfig(BrokerConfig config) {
        return EngineConfig.defaults(config.nodeId() + 1).withFsync(config.fsyncBeforeAck())
                .withApplyThreads(Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

}
