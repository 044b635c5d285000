package dev.cairn.broker;

import dev.cairn.broker.api.AlterConfigsHandler;
import dev.cairn.broker.api.AlterPartitionReassignmentsHandler;
import dev.cairn.broker.api.ApiDispatcher;
import dev.cairn.broker.api.BrokerLoggers;
import dev.cairn.broker.config.RaftEngineKeys;
import dev.cairn.broker.engine.EnginePartitions;
import dev.cairn.broker.logging.LogbackLevels;
import dev.cairn.broker.api.IncrementalAlterConfigsHandler;
import dev.cairn.broker.api.OffsetForLeaderEpochHandler;
import dev.cairn.broker.config.AuthorizerSettings;
import dev.cairn.broker.api.DeleteAclsHandler;
import dev.cairn.broker.api.DescribeAclsHandler;
import dev.cairn.broker.api.CreateAclsHandler;
import dev.cairn.broker.api.AccessControl;
import dev.cairn.broker.api.DescribeClientQuotasHandler;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.security.JaasPlainUsers;
import dev.cairn.broker.net.ListenerSecurity;
import dev.cairn.broker.config.TlsSettings;
import dev.cairn.broker.config.SecurityKeys;
import dev.cairn.broker.config.SaslSettings;
import dev.cairn.broker.security.JwksSource;
import dev.cairn.broker.security.JwtValidator;
import dev.cairn.broker.security.OAuthBearerServer;
import dev.cairn.broker.security.SslPrincipalMapper;
import dev.cairn.broker.config.KafkaListener;
import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.api.AlterUserScramCredentialsHandler;
import dev.cairn.broker.api.DescribeUserScramCredentialsHandler;
import dev.cairn.broker.api.SaslMechanisms;
import dev.cairn.broker.api.SaslAuthenticateHandler;
import dev.cairn.broker.api.SaslHandshakeHandler;
import dev.cairn.broker.api.ApiVersionsHandler;
import dev.cairn.broker.api.CreatePartitionsHandler;
import dev.cairn.broker.api.CreateTopicsHandler;
import dev.cairn.broker.api.DeleteTopicsHandler;
import dev.cairn.broker.api.DescribeClusterHandler;
import dev.cairn.broker.api.DescribeConfigsHandler;
import dev.cairn.broker.api.DeleteGroupsHandler;
import dev.cairn.broker.api.DeleteRecordsHandler;
import dev.cairn.broker.api.DescribeGroupsHandler;
import dev.cairn.broker.api.DescribeLogDirsHandler;
import dev.cairn.broker.api.DescribeProducersHandler;
import dev.cairn.broker.api.DescribeTransactionsHandler;
import dev.cairn.broker.api.ElectLeadersHandler;
import dev.cairn.broker.api.FetchHandler;
import dev.cairn.broker.api.FetchWaiter;
import dev.cairn.broker.api.FindCoordinatorHandler;
import dev.cairn.broker.api.HeartbeatHandler;
import dev.cairn.broker.api.InitProducerIdHandler;
import dev.cairn.broker.api.JoinGroupHandler;
import dev.cairn.broker.api.LeaveGroupHandler;
import dev.cairn.broker.api.ListGroupsHandler;
import dev.cairn.broker.api.ListPartitionReassignmentsHandler;
import dev.cairn.broker.api.ListTransactionsHandler;
import dev.cairn.broker.api.OffsetDeleteHandler;
import dev.cairn.broker.api.ListOffsetsHandler;
import dev.cairn.broker.api.MetadataHandler;
import dev.cairn.broker.api.OffsetCommitHandler;
import dev.cairn.broker.api.OffsetFetchHandler;
import dev.cairn.broker.api.ProduceHandler;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.broker.api.SyncGroupHandler;
import dev.cairn.broker.api.TopicCreator;
import dev.cairn.broker.api.TransactionCoordinator;
import dev.cairn.broker.api.TransactionMarkerWriter;
import dev.cairn.broker.api.TransactionalIdExpirer;
import dev.cairn.broker.api.TxnOffsetCommitHandler;
import dev.cairn.broker.api.WriteTxnMarkersHandler;
import dev.cairn.broker.api.AddOffsetsToTxnHandler;
import dev.cairn.broker.api.AddPartitionsToTxnHandler;
import dev.cairn.broker.api.EndTxnHandler;
import dev.cairn.broker.api.ProducerIds;
import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionHost;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.TransactionKeys;
import dev.cairn.broker.config.HostPort;
import dev.cairn.broker.config.RaftTlsSettings;
import dev.cairn.broker.config.RaftVoter;
import dev.cairn.broker.group.GroupConfig;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.metrics.BrokerMetrics;
import dev.cairn.broker.metrics.GroupLagMetrics;
import dev.cairn.broker.metrics.MeteredRequestHandler;
import dev.cairn.broker.metrics.MetricsServer;
import dev.cairn.broker.metrics.ReplicaCounts;
import dev.cairn.broker.metrics.TimedReplicatedPartitions;
import dev.cairn.broker.net.KafkaServer;
import dev.cairn.broker.net.RaftFrameTls;
import dev.cairn.broker.net.TlsContextSource;
import dev.cairn.broker.offsets.RocksDbOffsetStore;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.raft.RaftTls;
import dev.cairn.broker.raft.RatisCluster;
import dev.cairn.broker.raft.RatisSettings;
import dev.cairn.broker.cluster.ReplicaRaftState;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.record.BatchValidationConfig;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the only place that constructs concrete implementations and touches the real clock and
 * file system. Starts the Raft cluster (metadata group, partition groups), registers this broker, then opens the
 * Kafka listener.
 */
public final class Broker implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    /** How long start-up waits for the metadata group to accept this broker's registration. */
    public static final long REGISTRATION_WAIT_MS_MAX = 60_000;
    private static final long REGISTRATION_RETRY_MS = 200;
    /** How long one leadership hand-over to a preferred replica may take. */
    private static final long LEADERSHIP_TRANSFER_TIMEOUT_MS = 10_000;
    /** How often partition leaders check their in-sync replicas and publish changes. */
    private static final long PARTITION_STATE_CHECK_MS = 500;
    /** How often the group lag metric is recomputed (it reads every led partition's committed offsets). */
    private static final long GROUP_LAG_REFRESH_MS = 5_000;
    /** How long one retention command may wait for its Raft commit before the next check tries again. */
    private static final long RETENTION_SUBMIT_TIMEOUT_MS = 30_000;
    /** A compaction pass reads and rewrites segments on the apply thread: it may take a while on a large log. */
    private static final long COMPACTION_SUBMIT_TIMEOUT_MS = 600_000;
    /**
     * How often the group coordinator enforces session, rebalance and sync deadlines: the precision of those
     * timeouts, small next to the smallest session timeout allowed.
     */
    static final long GROUP_TICK_INTERVAL_MS = 100;
    /**
     * The longest {@link #close} takes, also when every other broker of the cluster is closing at the same moment
     * (issue 16 item 10): the metrics endpoint, the Kafka listener, then the Raft side, each within its own bound.
     */
    public static final long CLOSE_MS_MAX = MetricsServer.CLOSE_MS_MAX + KafkaServer.CLOSE_MS_MAX
            + RatisCluster.CLOSE_MS_MAX;

    private final BrokerConfig config;
    /** The metadata group (and, with raft.engine=ratis, the partition groups too). */
    private final RatisCluster cluster;
    private final PartitionHost partitions;
    private final BrokerTimers timers;
    private final KafkaServer server;
    private final BrokerMetrics metrics;
    /** The Prometheus endpoint, or null when metrics.port is -1. */
    private final MetricsServer metricsServer;

    private Broker(BrokerConfig config, RatisCluster cluster, PartitionHost partitions, BrokerTimers timers,
            KafkaServer server, MetricsServer metricsServer, BrokerMetrics metrics) {
        this.config = config;
        this.cluster = cluster;
        this.partitions = partitions;
        this.timers = timers;
        this.server = server;
        this.metricsServer = metricsServer;
        this.metrics = metrics;
    }

    public static String version() {
        try (InputStream in = Broker.class.getResourceAsStream("/cairn-version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    public static Broker start(BrokerConfig config) throws IOException, InterruptedException {
        return start(config, new NioFileIo());
    }

    /** As {@link #start(BrokerConfig)}, with the file access of segments and offsets given (tests inject faults). */
    static Broker start(BrokerConfig config, FileIo io) throws IOException, InterruptedException {
        Path dataDir = config.dataDir().toAbsolutePath().normalize();
        Files.createDirectories(dataDir);
        String localClusterId = ClusterIdentity.local(dataDir);
        RaftEngineKeys.Engine engine = RaftEngineMarker.check(dataDir, config.raftEngine(),
                config.isExplicit(RaftEngineKeys.RAFT_ENGINE));
        LOG.info("Cairn {} starting: node.id={}, Kafka listener {}, Raft listener {}, data directory {}, partitions on "
                + "raft.engine={}", version(), config.nodeId(), config.kafkaListener(), config.raftListener(), dataDir,
                engine.configName());
        config.warnings().forEach(warning -> LOG.warn("Configuration: {}", warning));
        LOG.info("Durability: a produce is acknowledged once a majority of its replicas {}", config.fsyncBeforeAck()
                ? "fsynced it (log.flush.interval.messages=1)"
                : "wrote it to the operating system; segments are fsynced on log.flush.interval.* and at snapshots "
                        + "(Kafka's default; log.flush.interval.messages=1 waits for the fsync)");
        Map<Integer, String> raftAddresses = new LinkedHashMap<>();
        for (RaftVoter voter : config.raftVoters()) {
            raftAddresses.put(voter.nodeId(), voter.address().toString());
        }
        RatisSettings ratis = RatisSettings.defaults(dataDir.resolve("raft").toFile(), config.raftListener().host(),
                config.raftListener().port()).withSnapshotThreshold(config.raftSnapshotIntervalEntries())
                .withSnapshotIntervalBytes(config.raftSnapshotIntervalBytes())
                .withBatchBytesMax(config.messageMaxBytes()).withFsyncBeforeAck(config.fsyncBeforeAck())
                .withSubmitThreads(config.numIoThreads()).withTls(RaftTlsSettings.of(config));
        LogConfig logConfig = new LogConfig((int) config.logSegmentBytes(), config.logSegmentMs(),
                LogConfig.INDEX_INTERVAL_BYTES_DEFAULT, LogConfig.SEGMENT_INDEX_BYTES_DEFAULT, config.logRetentionMs(),
                config.logRetentionBytes(), config.logFlushIntervalMessages(), config.logFlushIntervalMs()).validate();
        // Synced writes: the Raft log is purged behind snapshots, so a commit lost from an unsynced RocksDB WAL
        // could not be replayed. Commits are rare next to produces; the cost is small.
        OffsetStore offsets = RocksDbOffsetStore.open(io, dataDir.resolve("offsets"), true);
        boolean onEngine = engine == RaftEngineKeys.Engine.CAIRN;
        RatisCluster cluster = new RatisCluster(config.nodeId(), raftAddresses, ratis, io, dataDir, logConfig,
                offsets, !onEngine);
        PartitionHost partitions;
        try {
            partitions = onEngine ? startEngine(config, io, dataDir, logConfig, offsets, cluster) : cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        BrokerTimers timers = new BrokerTimers();
        ScheduledExecutorService maintenance = timers.maintenance();
        KafkaServer server = null;
        MetricsServer metricsServer = null;
        String clusterId;
        BrokerMetrics metrics = new BrokerMetrics();
        try {
            // Ratis ends the whole process when its port is taken (GrpcServicesImpl: "Terminating with exit status
            // 1"), so the port is checked first, while a clear error can still be given.
            AddressInUse.check("raft.listener", config.raftListener().host(), config.raftListener().port());
            cluster.start();
            clusterId = ClusterIdentity.agree(cluster, dataDir, localClusterId, REGISTRATION_WAIT_MS_MAX);
            GroupCoordinator groups = groupCoordinator(config, cluster);
            RequestHandler handler = new MeteredRequestHandler(
                    handlers(config, cluster, partitions, timers.requests(), clusterId, groups, metrics), metrics);
            List<KafkaServer.Endpoint> endpoints = endpoints(config, cluster);
            try {
                server = KafkaServer.start(endpoints, handler, config.socketRequestMaxBytes(), config.maxConnections(),
                        Math.max(2, Runtime.getRuntime().availableProcessors()), config.queuedMaxRequestBytes());
            } catch (Exception e) {
                // Netty rethrows the bind failure as it came, a checked IOException included.
                throw AddressInUse.named(e, "listeners", config.text(BrokerConfig.LISTENERS));
            }
            registerGauges(metrics, config, cluster, partitions, groups, server);
            if (config.metricsPort() >= 0) {
                metricsServer = MetricsServer.start(config.listener().host(), config.metricsPort(), metrics);
                GroupLagMetrics groupLag = new GroupLagMetrics(metrics);
                maintenance.scheduleWithFixedDelay(() -> groupLag.refresh(partitions.localReplicas().stream()
                        .filter(p -> partitions.leadership(new TopicPartition(p.topic(), p.partition())).local())
                        .toList()), GROUP_LAG_REFRESH_MS, GROUP_LAG_REFRESH_MS, TimeUnit.MILLISECONDS);
            }
            register(cluster, config, server, partitions.engineAddress());
            scheduleTlsReloads(config, endpoints, maintenance);
            schedulePartitionMaintenance(config, cluster, partitions, maintenance);
            timers.requests().scheduleWithFixedDelay(() -> groups.tick(System.currentTimeMillis()),
                    GROUP_TICK_INTERVAL_MS, GROUP_TICK_INTERVAL_MS, TimeUnit.MILLISECONDS);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (metricsServer != null) {
                metricsServer.close();
            }
            if (server != null) {
                server.close();
            }
            timers.close();
            if (partitions != cluster) {
                partitions.close();
            }
            cluster.close();
            metrics.close();
            throw e;
        }
        List<KafkaListener> listeners = config.kafkaListeners();
        List<String> kafkaEndpoints = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            KafkaListener listener = listeners.get(i);
            kafkaEndpoints.add(listener.name() + "://" + listener.address().host() + ":" + server.port(i));
        }
        LOG.info("Cairn {} started: node.id={}, cluster.id={}, Kafka on {}, Raft on {}, data in {}", version(),
                config.nodeId(), clusterId, String.join(",", kafkaEndpoints), config.raftListener(), dataDir);
        return new Broker(config, cluster, partitions, timers, server, metricsServer, metrics);
    }

    /**
     * The partitions on Cairn's own engine (raft.engine=cairn): started, with the groups of the local index, before
     * the metadata group replays; metadata changes then reach them from the cluster.
     */
    private static PartitionHost startEngine(BrokerConfig config, FileIo io, Path dataDir, LogConfig logConfig,
            OffsetStore offsets, RatisCluster cluster) throws IOException, InterruptedException {
        RaftFrameTls tls = RaftTlsSettings.of(config).map(RaftTls::managers)
                .map(managers -> RaftFrameTls.of(managers.keys(), managers.trust())).orElse(null);
        EnginePartitions engine = EnginePartitions.start(config, io, dataDir, logConfig, offsets, cluster::image,
                cluster::caughtUpImage, cluster::submit, tls);
        cluster.onMetadataChange(engine::onMetadataChange);
        return engine;
    }

    /** Logback's levels, for Kafka's BROKER_LOGGER configs. */
    private static BrokerLoggers logLevels() {
        return new BrokerLoggers() {
            @Override
            public Map<String, String> levels() {
                return LogbackLevels.levels();
            }

            @Override
            public boolean exists(String logger) {
                return LogbackLevels.exists(logger);
            }

            @Override
            public java.util.Optional<String> set(String logger, String level) {
                return LogbackLevels.set(logger, level);
            }

            @Override
            public java.util.Optional<String> unset(String logger) {
                return LogbackLevels.unset(logger);
            }
        };
    }

    private static List<KafkaServer.Endpoint> endpoints(BrokerConfig config, RatisCluster cluster) {
        List<KafkaServer.Endpoint> endpoints = new ArrayList<>();
        for (KafkaListener listener : config.kafkaListeners()) {
            endpoints.add(new KafkaServer.Endpoint(listener.address().host(), listener.address().port(),
                    listenerSecurity(config, listener, cluster)));
        }
        return endpoints;
    }

    /**
     * The partitions' maintenance on the shared timer: partition states and broker liveness published, topic configs,
     * reassignments, leadership moves, compaction and retention.
     */
    private static void schedulePartitionMaintenance(BrokerConfig config, RatisCluster cluster,
            PartitionHost partitions, ScheduledExecutorService maintenance) {
        maintenance.scheduleWithFixedDelay(() -> partitions.publishPartitionStates(System.currentTimeMillis(),
                config.replicaLagTimeMaxMs()), 0, PARTITION_STATE_CHECK_MS, TimeUnit.MILLISECONDS);
        maintenance.scheduleWithFixedDelay(
                () -> partitions.leaderJobs().syncTopicConfigs(RETENTION_SUBMIT_TIMEOUT_MS),
                PARTITION_STATE_CHECK_MS, PARTITION_STATE_CHECK_MS, TimeUnit.MILLISECONDS);
        maintenance.scheduleWithFixedDelay(() -> cluster.publishBrokerLiveness(config.brokerSessionTimeoutMs()),
                PARTITION_STATE_CHECK_MS, PARTITION_STATE_CHECK_MS, TimeUnit.MILLISECONDS);
        maintenance.scheduleWithFixedDelay(() -> partitions.driveReassignments(LEADERSHIP_TRANSFER_TIMEOUT_MS,
                System.currentTimeMillis()),
                PARTITION_STATE_CHECK_MS, PARTITION_STATE_CHECK_MS, TimeUnit.MILLISECONDS);
        scheduleLeadershipMoves(config, partitions, maintenance);
        long cleanerBackoff = config.logCleanerBackoffMs();
        maintenance.scheduleWithFixedDelay(() -> partitions.leaderJobs().compact(System.currentTimeMillis(),
                COMPACTION_SUBMIT_TIMEOUT_MS), cleanerBackoff, cleanerBackoff, TimeUnit.MILLISECONDS);
        long interval = config.logRetentionCheckIntervalMs();
        maintenance.scheduleWithFixedDelay(() -> partitions.leaderJobs().enforceRetention(
                System.currentTimeMillis(),
                RETENTION_SUBMIT_TIMEOUT_MS), interval, interval, TimeUnit.MILLISECONDS);
    }

    /** Leaderships leave replicas that went offline here, and (when enabled) return to preferred replicas. */
    private static void scheduleLeadershipMoves(BrokerConfig config, PartitionHost leaderships,
            ScheduledExecutorService maintenance) {
        maintenance.scheduleWithFixedDelay(() -> leaderships.handOverOfflineLeaderships(System.currentTimeMillis(),
                LEADERSHIP_TRANSFER_TIMEOUT_MS), PARTITION_STATE_CHECK_MS, PARTITION_STATE_CHECK_MS,
                TimeUnit.MILLISECONDS);
        if (config.autoLeaderRebalanceEnable()) {
            long balanceMs = TimeUnit.SECONDS.toMillis(config.leaderImbalanceCheckIntervalSeconds());
            maintenance.scheduleWithFixedDelay(() -> leaderships.balanceLeadership(System.currentTimeMillis(),
                    LEADERSHIP_TRANSFER_TIMEOUT_MS), balanceMs, balanceMs, TimeUnit.MILLISECONDS);
        }
    }

    /** Each TLS listener looks at its store files every ssl.reload.check.interval.ms (renewed certificates). */
    private static void scheduleTlsReloads(BrokerConfig config, List<KafkaServer.Endpoint> endpoints,
            ScheduledExecutorService maintenance) {
        long reloadCheckMs = SecurityKeys.SSL_RELOAD_CHECK_INTERVAL_MS.parse(
                config.text(SecurityKeys.SSL_RELOAD_CHECK_INTERVAL_MS));
        for (KafkaServer.Endpoint endpoint : endpoints) {
            TlsContextSource tls = endpoint.security().tls();
            if (tls != null && reloadCheckMs > 0) {
                maintenance.scheduleWithFixedDelay(tls::reloadIfChanged, reloadCheckMs, reloadCheckMs,
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    private static ListenerSecurity listenerSecurity(BrokerConfig config, KafkaListener listener,
            RatisCluster cluster) {
        AuthorizerSettings acls = AuthorizerSettings.of(config);
        AccessControl access = new AccessControl(acls.enabled(), acls.superUsers(), acls.allowEveryoneIfNoAclFound(),
                () -> cluster.image().acls());
        String rules = config.text(SecurityKeys.SSL_PRINCIPAL_MAPPING_RULES, listener);
        SslPrincipalMapper principals;
        try {
            principals = SslPrincipalMapper.parse(rules);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(config.keyName(SecurityKeys.SSL_PRINCIPAL_MAPPING_RULES, listener) + "=" + rules
                    + ": " + e.getMessage());
        }
        return ListenerSecurity.of(listener, listener.protocol().tls() ? TlsSettings.of(config, listener) : null,
                access, principals::map);
    }

    /** Gauges and totals read from live state at scrape time (see README, Metrics). */
    private static void registerGauges(BrokerMetrics metrics, BrokerConfig config, MetadataService cluster,
            PartitionHost partitions, GroupCoordinator groups, KafkaServer server) {
        metrics.counter("cairn.bytes.in", "Bytes of request frames received from clients", server::bytesIn);
        metrics.counter("cairn.bytes.out", "Bytes of response frames sent to clients", server::bytesOut);
        metrics.gauge("cairn.connections", "Open client connections", server::openConnections);
        metrics.gauge("cairn.queued.request.bytes", "Bytes of requests read and not yet answered (queued.max.request"
                + ".bytes bounds them)", server::queuedRequestBytes);
        metrics.gauge("cairn.consumer.groups", "Consumer groups this broker coordinates",
                () -> groups.listGroups().size());
        metrics.gauge("cairn.partitions", "Partitions with a replica on this broker",
                () -> replicaCounts(config, cluster, partitions).partitions());
        metrics.gauge("cairn.partition.leaders", "Partitions this broker leads",
                () -> replicaCounts(config, cluster, partitions).leaders());
        metrics.gauge("cairn.under.replicated.partitions",
                "Partitions this broker leads with fewer in-sync replicas than replicas",
                () -> replicaCounts(config, cluster, partitions).underReplicated());
        metrics.gauge("cairn.log.size.bytes", "Bytes of log segments of the replicas on this broker",
                () -> partitions.localReplicas().stream().mapToLong(Partition::logSizeBytes).sum());
        metrics.gauge("cairn.log.segments", "Log segments of the replicas on this broker",
                () -> partitions.localReplicas().stream().mapToLong(Partition::logSegmentCount).sum());
        metrics.counter("cairn.log.cleaner.passes", "Compaction passes the replicas on this broker applied",
                () -> partitions.localReplicas().stream().mapToLong(p -> p.compactionStats().passes()).sum());
        metrics.counter("cairn.log.cleaner.read.bytes", "Segment bytes compaction passes read and rewrote from",
                () -> partitions.localReplicas().stream().mapToLong(p -> p.compactionStats().bytesRead()).sum());
        metrics.counter("cairn.log.cleaner.written.bytes", "Segment bytes left after compaction passes",
                () -> partitions.localReplicas().stream().mapToLong(p -> p.compactionStats().bytesWritten()).sum());
        metrics.counter("cairn.log.cleaner.removed.records", "Records compaction removed (superseded, keyless, "
                + "expired tombstones)",
                () -> partitions.localReplicas().stream().mapToLong(p -> p.compactionStats().recordsRemoved()).sum());
    }

    private static ReplicaCounts replicaCounts(BrokerConfig config, MetadataService cluster,
            PartitionHost partitions) {
        return ReplicaCounts.of(cluster.image(), config.nodeId(), tp -> partitions.leadership(tp).local());
    }

    /**
     * The group coordinator, coordinating the groups whose id maps to this broker. Its state is in memory and this
     * broker's alone: a new coordinator starts a group empty and the members rejoin.
     */
    private static GroupCoordinator groupCoordinator(BrokerConfig config, RatisCluster cluster) {
        GroupConfig groupConfig = new GroupConfig(config.groupMinSessionTimeoutMs(),
                config.groupMaxSessionTimeoutMs(), config.groupInitialRebalanceDelayMs(), config.groupMaxSize());
        return new GroupCoordinator(groupConfig, () -> UUID.randomUUID().toString(),
                groupId -> isCoordinator(groupId, cluster.image().liveBrokers(), config.nodeId()));
    }

    /** Whether {@code nodeId} coordinates {@code groupId}: the broker FindCoordinator names for it. */
    private static boolean isCoordinator(String groupId, SortedMap<Integer, BrokerInfo> brokers, int nodeId) {
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, brokers);
        return coordinator != null && coordinator.nodeId() == nodeId;
    }

    private static RequestHandler handlers(BrokerConfig config, RatisCluster cluster, PartitionHost partitions,
            ScheduledExecutorService timer, String clusterId, GroupCoordinator groups, BrokerMetrics metrics) {
        ReplicatedPartitions timedPartitions = new TimedReplicatedPartitions(partitions, metrics);
        TopicCreator creator = new TopicCreator(cluster, UUID::randomUUID, partitions.replicasPerBrokerMax());
        FetchWaiter waiter = new FetchWaiter(timer);
        partitions.onAppend(waiter::onAppend);
        BatchValidationConfig validation = BatchValidationConfig.DEFAULTS
                .withMessageBytesMax(config.messageMaxBytes());
        Map<ApiKey, RequestHandler> handlers = new EnumMap<>(ApiKey.class);
        handlers.put(ApiKey.METADATA, new MetadataHandler(cluster, partitions, creator, clusterId,
                config.autoCreateTopicsEnable(), config.numPartitions(), config.defaultReplicationFactor()));
        TransactionCoordinator transactions = transactionCoordinator(config, cluster, timedPartitions, creator);
        handlers.put(ApiKey.PRODUCE, new ProduceHandler(cluster, timedPartitions, validation,
                partitions.batchBytesMax(config.messageMaxBytes()), System::currentTimeMillis, transactions));
        handlers.put(ApiKey.FETCH, new FetchHandler(cluster, partitions, waiter, System::currentTimeMillis));
        scheduleTransactionJobs(config, timer, transactions);
        handlers.put(ApiKey.INIT_PRODUCER_ID, new InitProducerIdHandler(new ProducerIds(cluster), transactions));
        handlers.put(ApiKey.ADD_PARTITIONS_TO_TXN, new AddPartitionsToTxnHandler(cluster, transactions));
        handlers.put(ApiKey.ADD_OFFSETS_TO_TXN, new AddOffsetsToTxnHandler(transactions));
        handlers.put(ApiKey.END_TXN, new EndTxnHandler(transactions));
        handlers.put(ApiKey.TXN_OFFSET_COMMIT, new TxnOffsetCommitHandler(cluster, timedPartitions, groups,
                transactions, System::currentTimeMillis));
        handlers.put(ApiKey.LIST_TRANSACTIONS, new ListTransactionsHandler(transactions, System::currentTimeMillis));
        handlers.put(ApiKey.DESCRIBE_TRANSACTIONS, new DescribeTransactionsHandler(transactions));
        handlers.put(ApiKey.DESCRIBE_PRODUCERS, new DescribeProducersHandler(cluster, partitions));
        handlers.put(ApiKey.WRITE_TXN_MARKERS, new WriteTxnMarkersHandler(cluster, timedPartitions,
                System::currentTimeMillis));
        handlers.put(ApiKey.JOIN_GROUP, new JoinGroupHandler(groups, System::currentTimeMillis));
        handlers.put(ApiKey.SYNC_GROUP, new SyncGroupHandler(groups, System::currentTimeMillis));
        handlers.put(ApiKey.HEARTBEAT, new HeartbeatHandler(groups, System::currentTimeMillis));
        handlers.put(ApiKey.LEAVE_GROUP, new LeaveGroupHandler(groups, System::currentTimeMillis));
        handlers.put(ApiKey.LIST_GROUPS, new ListGroupsHandler(groups, cluster, timedPartitions));
        handlers.put(ApiKey.DESCRIBE_GROUPS, new DescribeGroupsHandler(groups));
        handlers.put(ApiKey.DELETE_GROUPS, new DeleteGroupsHandler(groups, cluster, partitions));
        handlers.put(ApiKey.OFFSET_DELETE, new OffsetDeleteHandler(groups, cluster, partitions));
        handlers.put(ApiKey.LIST_OFFSETS, new ListOffsetsHandler(cluster, partitions));
        handlers.put(ApiKey.OFFSET_FOR_LEADER_EPOCH, new OffsetForLeaderEpochHandler(cluster, partitions));
        handlers.put(ApiKey.DELETE_RECORDS, new DeleteRecordsHandler(cluster, timedPartitions));
        handlers.put(ApiKey.ELECT_LEADERS, new ElectLeadersHandler(cluster, partitions,
                partitions::transferLeadership));
        if (partitions.supportsReassignment()) {
            // Not offered otherwise (raft.engine=cairn): clients then get Kafka's UnsupportedVersionException.
            handlers.put(ApiKey.ALTER_PARTITION_REASSIGNMENTS, new AlterPartitionReassignmentsHandler(cluster));
        }
        handlers.put(ApiKey.LIST_PARTITION_REASSIGNMENTS, new ListPartitionReassignmentsHandler(cluster));
        handlers.put(ApiKey.DESCRIBE_LOG_DIRS, new DescribeLogDirsHandler(
                config.dataDir().resolve("logs"), partitions::localReplicasByPartition));
        handlers.put(ApiKey.FIND_COORDINATOR, new FindCoordinatorHandler(cluster, transactions));
        handlers.put(ApiKey.OFFSET_COMMIT, new OffsetCommitHandler(cluster, timedPartitions, groups,
                System::currentTimeMillis));
        handlers.put(ApiKey.OFFSET_FETCH, new OffsetFetchHandler(cluster, partitions));
        handlers.put(ApiKey.DESCRIBE_CLUSTER, new DescribeClusterHandler(cluster, clusterId));
        Map<String, SaslMechanisms> sasl = saslMechanisms(config, cluster, timer);
        SaslMechanisms firstListener = sasl.get(config.kafkaListener().name());
        handlers.put(ApiKey.SASL_HANDSHAKE, new SaslHandshakeHandler(
                listener -> listener == null ? firstListener : sasl.getOrDefault(listener, firstListener)));
        handlers.put(ApiKey.SASL_AUTHENTICATE, new SaslAuthenticateHandler(
                SecurityKeys.CONNECTIONS_MAX_REAUTH_MS.parse(config.text(SecurityKeys.CONNECTIONS_MAX_REAUTH_MS)),
                System::nanoTime));
        handlers.put(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, new DescribeUserScramCredentialsHandler(cluster));
        handlers.put(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, new AlterUserScramCredentialsHandler(cluster));
        handlers.put(ApiKey.DESCRIBE_CLIENT_QUOTAS, new DescribeClientQuotasHandler());
        handlers.put(ApiKey.CREATE_ACLS, new CreateAclsHandler(cluster));
        handlers.put(ApiKey.DESCRIBE_ACLS, new DescribeAclsHandler());
        handlers.put(ApiKey.DELETE_ACLS, new DeleteAclsHandler(cluster));
        handlers.put(ApiKey.CREATE_TOPICS, new CreateTopicsHandler(cluster, partitions, creator, timer,
                System::currentTimeMillis, config.numPartitions(), config.defaultReplicationFactor()));
        handlers.put(ApiKey.DELETE_TOPICS, new DeleteTopicsHandler(cluster));
        handlers.put(ApiKey.CREATE_PARTITIONS, new CreatePartitionsHandler(cluster, partitions, creator, timer,
                System::currentTimeMillis));
        BrokerLoggers loggers = logLevels();
        handlers.put(ApiKey.DESCRIBE_CONFIGS, new DescribeConfigsHandler(cluster, config, loggers));
        handlers.put(ApiKey.INCREMENTAL_ALTER_CONFIGS, new IncrementalAlterConfigsHandler(cluster, config.nodeId(),
                loggers));
        handlers.put(ApiKey.ALTER_CONFIGS, new AlterConfigsHandler(cluster, config.nodeId(), loggers));
        // Last, from the map itself: ApiVersions advertises exactly the APIs registered above.
        handlers.put(ApiKey.API_VERSIONS, new ApiVersionsHandler(handlers.keySet()));
        return new ApiDispatcher(handlers);
    }

    /** The coordinator's own work: ending (and timing out) transactions, and expiring idle transactional ids. */
    private static void scheduleTransactionJobs(BrokerConfig config, ScheduledExecutorService timer,
            TransactionCoordinator transactions) {
        timer.scheduleWithFixedDelay(new TransactionMarkerWriter(transactions), TransactionMarkerWriter.INTERVAL_MS,
                TransactionMarkerWriter.INTERVAL_MS, TimeUnit.MILLISECONDS);
        long cleanupIntervalMs = TransactionKeys.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS.parse(
                config.text(TransactionKeys.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS));
        timer.scheduleWithFixedDelay(new TransactionalIdExpirer(transactions,
                TransactionKeys.TRANSACTIONAL_ID_EXPIRATION_MS.parse(
                        config.text(TransactionKeys.TRANSACTIONAL_ID_EXPIRATION_MS))),
                cleanupIntervalMs, cleanupIntervalMs, TimeUnit.MILLISECONDS);
    }

    private static TransactionCoordinator transactionCoordinator(BrokerConfig config, RatisCluster cluster,
            ReplicatedPartitions partitions, TopicCreator creator) {
        return new TransactionCoordinator(cluster, partitions, creator, new ProducerIds(cluster),
                TransactionKeys.TRANSACTION_STATE_LOG_NUM_PARTITIONS.parse(
                        config.text(TransactionKeys.TRANSACTION_STATE_LOG_NUM_PARTITIONS)),
                TransactionKeys.TRANSACTION_STATE_LOG_REPLICATION_FACTOR.parse(
                        config.text(TransactionKeys.TRANSACTION_STATE_LOG_REPLICATION_FACTOR)),
                TransactionKeys.TRANSACTION_MAX_TIMEOUT_MS.parse(
                        config.text(TransactionKeys.TRANSACTION_MAX_TIMEOUT_MS)),
                System::currentTimeMillis);
    }

    /** The SASL mechanisms of each listener, by name (none on a listener without SASL): PLAIN users from its JAAS. */
    private static Map<String, SaslMechanisms> saslMechanisms(BrokerConfig config, RatisCluster cluster,
            ScheduledExecutorService timer) {
        Map<String, SaslMechanisms> byListener = new java.util.HashMap<>();
        JwtValidator oauthBearer = null;
        for (KafkaListener listener : config.kafkaListeners()) {
            if (!listener.protocol().sasl()) {
                byListener.put(listener.name(), new SaslMechanisms(List.of(), Map.of(),
                        () -> cluster.image().scramCredentials()));
                continue;
            }
            SaslSettings sasl = SaslSettings.of(config, listener);
            Map<String, String> plainUsers;
            try {
                plainUsers = sasl.plainJaasConfig() == null ? Map.of()
                        : JaasPlainUsers.parse(sasl.plainJaasConfig());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SecurityKeys.jaasKey(listener.name(), "PLAIN") + ": " + e.getMessage());
            }
            if (sasl.mechanisms().contains(OAuthBearerServer.MECHANISM) && oauthBearer == null) {
                oauthBearer = oauthBearerValidator(config, timer);
            }
            byListener.put(listener.name(), new SaslMechanisms(sasl.mechanisms(), plainUsers,
                    () -> cluster.image().scramCredentials(), 0, oauthBearer));
        }
        return byListener;
    }

    /**
     * OAUTHBEARER's token validator over the key set at sasl.oauthbearer.jwks.endpoint.url, read now (the broker does
     * not start without it) and again every sasl.oauthbearer.jwks.endpoint.refresh.ms, off the timer thread.
     */
    private static JwtValidator oauthBearerValidator(BrokerConfig config, ScheduledExecutorService timer) {
        String url = config.text(SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL);
        JwksSource keys;
        try {
            keys = JwksSource.load(url);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL.name() + "=" + url
                    + ": cannot read the key set: " + e.getMessage());
        }
        long refreshMs = SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS.parse(
                config.text(SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS));
        java.util.concurrent.atomic.AtomicBoolean refreshing = new java.util.concurrent.atomic.AtomicBoolean();
        timer.scheduleWithFixedDelay(() -> {
            if (refreshing.compareAndSet(false, true)) {
                CompletableFuture.runAsync(keys::refresh).whenComplete((ignored, error) -> refreshing.set(false));
            }
        }, refreshMs, refreshMs, TimeUnit.MILLISECONDS);
        String audience = config.text(SecurityKeys.SASL_OAUTHBEARER_EXPECTED_AUDIENCE);
        String issuer = config.text(SecurityKeys.SASL_OAUTHBEARER_EXPECTED_ISSUER);
        return new JwtValidator(keys::current, issuer.isEmpty() ? null : issuer,
                audience.isBlank() ? List.of() : List.of(audience.trim().split("\\s*,\\s*")),
                config.text(SecurityKeys.SASL_OAUTHBEARER_SUB_CLAIM_NAME),
                TimeUnit.SECONDS.toMillis(SecurityKeys.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS.parse(
                        config.text(SecurityKeys.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS))));
    }

    /**
     * Announces this broker's Kafka endpoints (one per listener) through the metadata group, retrying until a leader
     * accepts it. An advertised port of 0 (the listener picked a free port) is replaced by the port actually bound.
     */
    private static void register(RatisCluster cluster, BrokerConfig config, KafkaServer server, String engineAddress)
            throws InterruptedException {
        List<KafkaListener> listeners = config.kafkaListeners();
        Map<String, HostPort> advertised = config.advertisedListeners();
        List<BrokerInfo.Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            HostPort address = advertised.get(listeners.get(i).name());
            endpoints.add(new BrokerInfo.Endpoint(listeners.get(i).name(), address.host(),
                    address.port() == 0 ? server.port(i) : address.port()));
        }
        BrokerInfo self = new BrokerInfo(config.nodeId(), endpoints.get(0).host(), endpoints.get(0).port(),
                config.raftListener().toString(), endpoints, engineAddress);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REGISTRATION_WAIT_MS_MAX);
        MetadataResult result = null;
        while (System.nanoTime() < deadline) {
            if (cluster.controllerId() < 0) {
                // No metadata leader known yet: an election is under way.
                TimeUnit.MILLISECONDS.sleep(REGISTRATION_RETRY_MS);
                continue;
            }
            result = cluster.submit(new MetadataCommand.RegisterBroker(self)).join();
            if (result == MetadataResult.OK) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(REGISTRATION_RETRY_MS);
        }
        throw new IllegalStateException("broker " + config.nodeId() + " could not register within "
                + REGISTRATION_WAIT_MS_MAX + " ms (is a majority of raft.voters up?): " + result);
    }

    public BrokerConfig config() {
        return config;
    }

    /** This broker's replica of a partition as Raft sees it; empty when it hosts none. */
    public Optional<ReplicaRaftState> replicaRaftState(String topic, int partition) {
        return partitions.replicaRaftState(new TopicPartition(topic, partition));
    }

    /**
     * The offset {@code group} committed for a partition as this broker's replica holds it (leader or follower),
     * or -1 when it holds none; empty when this broker hosts no replica of the partition.
     */
    public OptionalLong localCommittedOffset(String topic, int partition, String group) {
        return partitions.localReplica(new TopicPartition(topic, partition))
                .map(p -> OptionalLong.of(p.committedOffset(group).map(o -> o.offset()).orElse(-1L)))
                .orElse(OptionalLong.empty());
    }

    /** The partitions as this broker's handlers reach them: submit through a partition's group, read, ask who leads. */
    public ReplicatedPartitions partitions() {
        return partitions;
    }

    /** This broker's replica of a partition, leader or follower; empty when it hosts none. */
    public Optional<Partition> localReplica(String topic, int partition) {
        return partitions.localReplica(new TopicPartition(topic, partition));
    }

    /** The first Kafka listener's bound port (useful when configured as 0). */
    public int kafkaPort() {
        return server.port();
    }

    /** The bound port of the Kafka listener named {@code listenerName}. */
    public int kafkaPort(String listenerName) {
        List<KafkaListener> listeners = config.kafkaListeners();
        for (int i = 0; i < listeners.size(); i++) {
            if (listeners.get(i).name().equalsIgnoreCase(listenerName)) {
                return server.port(i);
            }
        }
        throw new IllegalArgumentException("no listener named " + listenerName);
    }

    /** The metrics endpoint's bound port, or -1 when metrics.port is -1. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    /**
     * Stops serving clients, then closes the Raft side (see RaftShutdown), within {@link #CLOSE_MS_MAX}. Requests in
     * flight get no answer; every acknowledged record is in a majority of Raft logs and survives.
     */
    @Override
    public void close() throws IOException {
        long startNanos = System.nanoTime();
        LOG.info("Cairn node {} shutting down", config.nodeId());
        if (metricsServer != null) {
            metricsServer.close();
        }
        server.close();
        timers.close();
        if (partitions != cluster) {
            partitions.close();
        }
        cluster.close();
        metrics.close();
        LOG.info("Cairn node {} stopped in {} ms", config.nodeId(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }
}
