package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.MetadataChange;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine groups this broker hosts, kept equal to what metadata assigns it: each metadata change is handed to
 * one reconciler thread (the metadata apply thread must not wait), which removes the groups of a deleted topic and
 * creates groups for new assignments. Every hosted group is in the local {@link EngineGroupIndex} first, so that
 * the next start creates it again before metadata replays (the engine's log recovers Raft state, not machines).
 *
 * <p>A partition's files are opened and deleted by {@link EnginePartitionFiles}, several at a time; its Raft entries
 * are in the engine's shared log.
 */
final class EngineGroups implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineGroups.class);
    /** How long creating or removing the groups of one change may take before it is reported failed. */
    static final long GROUP_CHANGE_WAIT_MS = 60_000;
    /** How long close waits for a reconciliation in progress. */
    static final long RECONCILE_SHUTDOWN_WAIT_MS = 5_000;
    /** How long a hosted group must stay out of caught-up metadata before {@link #sweepOrphans} removes it. */
    static final long ORPHAN_GRACE_MS = 30_000;

    /**
     * Where and how the partitions keep their data.
     *
     * @param snapshotsDir where each group's snapshots go, in a directory named after the group
     * @param snapshotIntervalBytes raft.snapshot.interval.bytes
     * @param snapshotIntervalEntries raft.snapshot.interval.entries
     */
    record Storage(FileIo io, Path logsDir, LogConfig logConfig, OffsetStore offsets, Path snapshotsDir,
            long snapshotIntervalBytes, long snapshotIntervalEntries) {
    }

    /** One hosted group. */
    record Hosted(int group, TopicPartition tp, EnginePartitionMachine machine) {
    }

    private final int nodeId;
    private final RaftEngine engine;
    private final Closeable transport;
    private final EngineGroupIndex index;
    private final EngineLeaderships leaderships;
    private final EnginePartitionFiles files;
    private final EngineCompaction compaction;
    private final Map<TopicPartition, Hosted> byPartition = new ConcurrentHashMap<>();
    private final Map<Integer, Hosted> byGroup = new ConcurrentHashMap<>();
    /** Whether the reconciler's last look failed: then every change looks again, whatever its cause. */
    private volatile boolean lastReconcileFailed;
    private final ExecutorService reconciler = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cairn-engine-reconciler");
        thread.setDaemon(true);
        return thread;
    });
    /** Hosted groups a sweep found out of metadata, with when it first found so; reconciler thread only. */
    private final Map<Integer, Long> orphanedSince = new HashMap<>();

    private volatile GroupCopies copies;

    EngineGroups(int nodeId, RaftEngine engine, Closeable transport, EngineGroupIndex index,
            EngineLeaderships leaderships, Storage storage, Consumer<TopicPartition> onAppended) {
        this.nodeId = nodeId;
        this.engine = engine;
        this.transport = transport;
        this.index = index;
        this.leaderships = leaderships;
        this.files = new EnginePartitionFiles(storage, onAppended);
        this.compaction = new EngineCompaction(() -> byGroup.values().stream().map(Hosted::machine).toList(),
                storage.snapshotIntervalBytes(), storage.snapshotIntervalEntries());
    }

    RaftEngine engine() {
        return engine;
    }

    /** Reads of committed batches from another replica of a group, for replicas that lost some (blocking, bounded). */
    @FunctionalInterface
    interface GroupCopies {
        ByteBuffer committedBatches(int group, long fromOffset, int maxBytes) throws Exception;
    }

    /** Where groups created from now on copy lost batches from (set before the first group is created). */
    void copyGapsThrough(GroupCopies from) {
        copies = from;
    }

    Hosted hosted(TopicPartition tp) {
        return byPartition.get(tp);
    }

    Hosted hostedGroup(int group) {
        return byGroup.get(group);
    }

    Collection<TopicPartition> hostedPartitions() {
        return byPartition.keySet();
    }

    /**
     * Creates every group of the local index (before metadata replays), and removes groups the engine's log holds
     * that the index does not (removed from the index by a change the crash interrupted).
     */
    void createIndexed() throws IOException {
        Map<Integer, EngineGroupIndex.Entry> indexed = index.entries();
        create(indexed.values(), false);
        List<Integer> stale = new ArrayList<>();
        for (int group : engine.recoveredGroups()) {
            if (!indexed.containsKey(group)) {
                stale.add(group);
            }
        }
        for (int group : stale) {
            await(List.of(engine.removeGroup(group)), "removing group " + group + " not in the local index");
        }
        compaction.start();
        LOG.info("raft.engine=cairn: {} partition group(s) hosted at start, {} loop(s), {} engine thread(s)",
                indexed.size(), engine.config().loops(), engine.threadCount());
    }

    /** Hands the change to the reconciler thread; never throws (it runs on the metadata apply thread). */
    void onMetadataChange(MetadataChange change) {
        if (!lastReconcileFailed && (change.cause() instanceof MetadataCommand.UpdatePartitionState
                || change.cause() instanceof MetadataCommand.AllocateProducerIds)) {
            // Neither assigns a replica, so there is no group to add or remove, and a look goes over every
            // partition: thousands of these follow the creation of a large topic.
            return;
        }
        try {
            reconciler.execute(() -> reconcile(change));
        } catch (RejectedExecutionException e) {
            LOG.debug("shutting down: metadata change at raft index {} not reconciled",
                    change.current().appliedRaftIndex());
        }
    }

    /**
     * Removes groups only when a topic deletion is applied: during replay after a restart the images are old ones,
     * and a topic missing from an old image must not cost its data.
     */
    private void reconcile(MetadataChange change) {
        try {
            if (change.cause() instanceof MetadataCommand.DeleteTopic delete) {
                Optional<TopicInfo> deleted = change.previous().topic(delete.name());
                if (deleted.isPresent()) {
                    remove(deleted.get());
                }
            }
            addAssigned(change.current());
            lastReconcileFailed = false;
        } catch (IOException | RuntimeException e) {
            lastReconcileFailed = true;
            LOG.error("reconciling engine partition groups with metadata at raft index {} failed",
                    change.current().appliedRaftIndex(), e);
        }
    }

    /**
     * Creates a group for every partition {@code image} places here and no hosted group serves. A hosted group of the
     * same partition under another group id is another incarnation of its topic (deleted and created again under the
     * same name): group ids only grow, so a lower hosted id is a deleted topic's group, removed first, and a higher
     * one means {@code image} is an old one being replayed after a restart, which must not bring the old group back
     * (both would share the partition's directory, and the old one's deletion would then take the new one's files).
     */
    private void addAssigned(MetadataImage image) throws IOException {
        List<EngineGroupIndex.Entry> added = new ArrayList<>();
        List<Hosted> replaced = new ArrayList<>();
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                List<Integer> replicas = topic.replicas().get(p);
                int group = topic.raftGroup(p);
                Hosted hosting = byPartition.get(new TopicPartition(topic.name(), p));
                if (!replicas.contains(nodeId) || byGroup.containsKey(group)
                        || hosting != null && hosting.group() > group) {
                    continue;
                }
                if (group == 0) {
                    LOG.error("{}-{} has no engine group id (created before raft.engine=cairn); not hosted",
                            topic.name(), p);
                    continue;
                }
                if (hosting != null) {
                    replaced.add(hosting);
                }
                List<Integer> voters = startingVoters(image, new TopicPartition(topic.name(), p), replicas);
                added.add(new EngineGroupIndex.Entry(group, topic.topicId(), p, topic.name(), topic.configs(),
                        voters));
            }
        }
        if (added.isEmpty()) {
            return;
        }
        removeHosted(replaced, "of a deleted topic whose name was created again");
        // The index first, in one write: a group in the engine's log after a crash must be found in it.
        index.putAll(added);
        create(added, true);
        LOG.info("hosting {} new partition(s) on the engine: {}", added.size(), added.size() <= 10 ? added.stream()
                .map(e -> e.topic() + "-" + e.partition()).toList() : added.get(0).topic() + "-...");
    }

    /**
     * The engine replica ids a new replica of {@code tp} starts with: its replicas, or, for a replica a reassignment
     * adds, the replicas the group had before it, so that it stays outside the voters (never standing for election)
     * until the leader's log makes it one ({@link EngineReassignments}).
     */
    private List<Integer> startingVoters(MetadataImage image, TopicPartition tp, List<Integer> replicas) {
        PartitionReassignment moving = image.reassignments().get(tp);
        List<Integer> voters = moving != null && moving.adding().contains(nodeId) ? moving.original() : replicas;
        return voters.stream().map(node -> node + 1).toList();
    }

    /**
     * Creates the groups' machines and engine replicas; with {@code newGroups}, a group's preferred replica (the first
     * of its replicas) stands for election at once, so that a new partition has its leader, on the broker metadata
     * prefers, a tick or two after the replicas run it (rather than wherever a 1-2 s election timeout fires first).
     */
    private void create(Collection<EngineGroupIndex.Entry> entries, boolean newGroups) throws IOException {
        List<CompletableFuture<Void>> created = new ArrayList<>();
        for (EngineGroupIndex.Entry entry : entries) {
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            int group = entry.group();
            boolean preferred = newGroups && entry.voters().get(0) == nodeId + 1;
            created.add(files.open(entry, index -> compact(tp, group, index)).thenCompose(machine -> {
                GroupCopies from = copies;
                if (from != null) {
                    machine.copyGapsFrom((fromOffset, maxBytes) -> from.committedBatches(group, fromOffset,
                            maxBytes));
                }
                Hosted hosted = new Hosted(group, tp, machine);
                leaderships.name(group, tp.toString());
                byGroup.put(group, hosted);
                byPartition.put(tp, hosted);
                return engine.createGroup(group, entry.voters(), machine, preferred);
            }));
        }
        await(created, "creating " + entries.size() + " partition group(s)");
    }

    private CompletableFuture<Void> compact(TopicPartition tp, int group, long index) {
        return engine.compact(group, index).whenComplete((done, error) -> {
            if (error != null) {
                LOG.debug("{}: the engine did not compact group {} to {}: {}", tp, group, index, error.toString());
            }
        });
    }

    private void remove(TopicInfo topic) throws IOException {
        List<Hosted> removed = new ArrayList<>();
        for (Hosted hosted : byGroup.values()) {
            int partition = hosted.tp().partition();
            if (hosted.tp().topic().equals(topic.name()) && hosted.group() == topic.raftGroup(partition)) {
                removed.add(hosted);
            }
        }
        removeHosted(removed, "of deleted topic " + topic.name());
    }

    /**
     * Removes hosted groups that {@code image}, holding every committed metadata entry, has not placed here for
     * {@link #ORPHAN_GRACE_MS}: a topic deleted while this broker was down, whose deletion it learnt from a metadata
     * snapshot rather than by applying it. Runs on the reconciler thread; never throws.
     */
    void sweepOrphans(Optional<MetadataImage> caughtUp, long nowMs) {
        try {
            reconciler.execute(() -> {
                try {
                    sweep(caughtUp, nowMs);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("removing engine groups metadata no longer places here failed; retrying later", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("shutting down: no sweep of orphaned engine groups");
        }
    }

    private void sweep(Optional<MetadataImage> caughtUp, long nowMs) throws IOException {
        orphanedSince.keySet().retainAll(byGroup.keySet());
        List<Hosted> removed = new ArrayList<>();
        for (Hosted hosted : byGroup.values()) {
            if (caughtUp.isEmpty() || placedHere(caughtUp.get(), hosted)) {
                orphanedSince.remove(hosted.group());
            } else if (nowMs - orphanedSince.computeIfAbsent(hosted.group(), group -> nowMs) >= ORPHAN_GRACE_MS) {
                removed.add(hosted);
            }
        }
        removeHosted(removed, "no longer placed here by metadata (for " + ORPHAN_GRACE_MS + " ms or more)");
    }

    private boolean placedHere(MetadataImage image, Hosted hosted) {
        Optional<TopicInfo> topic = image.topic(hosted.tp().topic());
        int p = hosted.tp().partition();
        return topic.isPresent() && p < topic.get().partitionCount() && topic.get().raftGroup(p) == hosted.group()
                && topic.get().replicas().get(p).contains(nodeId);
    }

    /**
     * Removes the groups from the engine, then their partitions' offsets, files and snapshots, then their index
     * entries: a crash midway leaves them in the index, and the next start removes them again.
     */
    private void removeHosted(List<Hosted> removed, String why) throws IOException {
        if (removed.isEmpty()) {
            return;
        }
        LOG.info("removing {} partition group(s) {}: {}", removed.size(), why, removed.size() <= 10
                ? removed.stream().map(h -> h.tp().toString()).toList() : removed.get(0).tp() + ", ...");
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        Set<Integer> groups = new HashSet<>();
        for (Hosted hosted : removed) {
            pending.add(engine.removeGroup(hosted.group()));
            groups.add(hosted.group());
        }
        await(pending, "removing " + removed.size() + " partition group(s)");
        List<CompletableFuture<Void>> deleted = new ArrayList<>();
        for (Hosted hosted : removed) {
            byGroup.remove(hosted.group());
            byPartition.remove(hosted.tp(), hosted);
            leaderships.forget(hosted.group());
            deleted.add(files.delete(hosted.tp(), hosted.group(), hosted.machine()));
        }
        await(deleted, "deleting the files of " + removed.size() + " partition(s)");
        index.removeAll(groups);
    }

    private static void await(List<CompletableFuture<Void>> futures, String what) throws IOException {
        try {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                    .get(GROUP_CHANGE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(what + " failed", e);
        }
    }

    /** Stops reconciling, then the engine (its log), then the transport, then the partitions' files. */
    @Override
    public void close() {
        reconciler.shutdown();
        try {
            if (!reconciler.awaitTermination(RECONCILE_SHUTDOWN_WAIT_MS, TimeUnit.MILLISECONDS)) {
                reconciler.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        files.close();
        compaction.close();
        engine.close();
        try {
            transport.close();
        } catch (IOException e) {
            LOG.warn("closing the engine's transport failed", e);
        }
        for (Hosted hosted : byGroup.values()) {
            try {
                hosted.machine().partition().close();
            } catch (RuntimeException e) {
                LOG.warn("{}: closing its log failed", hosted.tp(), e);
            }
        }
    }
}
