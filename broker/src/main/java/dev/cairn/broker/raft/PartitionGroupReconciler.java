package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataChange;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.Directories;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the partition Raft groups this broker hosts equal to what metadata assigns it. After every metadata change
 * (handed over from the metadata apply thread, which must not block) one reconciler thread removes the groups of a
 * deleted topic, then adds groups for new assignments. The adds and removes of one change run
 * {@link #GROUP_CHANGES_IN_PARALLEL_MAX} at a time: one at a time, a 300-partition topic took 160 s to delete on one
 * broker, and a CreateTopics queued behind it timed out.
 */
final class PartitionGroupReconciler implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionGroupReconciler.class);
    /** Partition groups added or removed at once when a topic is created, grown or deleted. */
    static final int GROUP_CHANGES_IN_PARALLEL_MAX = 8;
    /** Idle group-change threads end after this long: topics are created and deleted rarely. */
    private static final long GROUP_CHANGE_THREAD_IDLE_S = 30;
    /** How long a hosted replica must stay out of metadata's placement before {@link #sweepOrphans} removes it. */
    static final long ORPHAN_GRACE_MS = 30_000;
    /**
     * How long shutdown waits for a reconciliation in progress. Groups it had no time to add are added after the
     * restart (the index is written first); replicas it had no time to remove are removed then (the deletion replays,
     * or the orphan sweep finds them).
     */
    static final long RECONCILE_SHUTDOWN_WAIT_MS = 5_000;

    private final int nodeId;
    private final RaftHost host;
    private final LocalPartitionIndex index;
    private final Function<List<Integer>, List<RaftPeer>> peers;
    private final Function<TopicPartition, Path> partitionDir;
    private final BiConsumer<TopicPartition, UUID> onRemoved;
    private final ExecutorService reconciler = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cairn-reconciler");
        thread.setDaemon(true);
        return thread;
    });
    private final ExecutorService groupChanges;
    /** Hosted replicas found orphaned by a sweep, with when they were first found so; reconciler thread only. */
    private final Map<UUID, Long> orphanedSince = new HashMap<>();

    /**
     * @param peers the Raft peers of a replica list
     * @param partitionDir the log directory of a partition
     * @param onRemoved told of each group removed, once its Raft group stopped and before its files and index entry go
     */
    PartitionGroupReconciler(int nodeId, RaftHost host, LocalPartitionIndex index,
            Function<List<Integer>, List<RaftPeer>> peers, Function<TopicPartition, Path> partitionDir,
            BiConsumer<TopicPartition, UUID> onRemoved) {
        this.nodeId = nodeId;
        this.host = host;
        this.index = index;
        this.peers = peers;
        this.partitionDir = partitionDir;
        this.onRemoved = onRemoved;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(GROUP_CHANGES_IN_PARALLEL_MAX, GROUP_CHANGES_IN_PARALLEL_MAX,
                GROUP_CHANGE_THREAD_IDLE_S, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread thread = new Thread(r, "cairn-group-changes");
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        this.groupChanges = pool;
    }

    /** Hands the change to the reconciler thread; never throws (it runs on the metadata apply thread). */
    void onMetadataChange(MetadataChange change) {
        try {
            reconciler.execute(() -> reconcile(change));
        } catch (RejectedExecutionException e) {
            LOG.debug("shutting down: metadata change at raft index {} not reconciled",
                    change.current().appliedRaftIndex());
        }
    }

    /**
     * Brings local groups in line with one metadata change. Groups are removed only when a topic deletion is
     * applied: during replay after a restart the images are old ones, and a topic missing from an old image
     * must not cost its data.
     */
    private void reconcile(MetadataChange change) {
        try {
            if (change.cause() instanceof MetadataCommand.DeleteTopic delete) {
                Optional<TopicInfo> deleted = change.previous().topic(delete.name());
                if (deleted.isPresent()) {
                    removeTopic(deleted.get().topicId());
                }
            }
            if (change.cause() instanceof MetadataCommand.CompleteReassignment done) {
                leaveIfReassignedAway(change.current(), done);
            }
            addAssignedPartitions(change.current());
        } catch (IOException | RuntimeException e) {
            LOG.error("reconciling local partition groups with metadata at raft index {} failed",
                    change.current().appliedRaftIndex(), e);
        }
    }

    private void removeTopic(UUID topicId) throws IOException {
        List<LocalPartitionIndex.Entry> removed = new ArrayList<>();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            if (entry.topicId().equals(topicId)) {
                removed.add(entry);
            }
        }
        if (removed.isEmpty()) {
            return;
        }
        LOG.info("removing {} partition(s) of topic {}", removed.size(), removed.get(0).topic());
        inParallel(removed, entry -> {
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            host.removeGroup(RaftGroupId.valueOf(entry.groupId()));
            onRemoved.accept(tp, entry.groupId());
            Directories.deleteRecursively(partitionDir.apply(tp));
        });
        index.removeAll(removed.stream().map(LocalPartitionIndex.Entry::groupId).toList());
    }

    /**
     * After a reassignment that moved this broker's replica away completed (its Raft group no longer counts this
     * broker among its voters), removes the group and its files.
     */
    private void leaveIfReassignedAway(MetadataImage image, MetadataCommand.CompleteReassignment done)
            throws IOException {
        Optional<LocalPartitionIndex.Entry> entry = index.get(PartitionGroups.groupId(done.topicId(),
                done.partition()));
        if (entry.isPresent() && orphaned(image, entry.get())) {
            removeLocal(entry.get(), "moved away by a completed reassignment (now on " + done.target() + ")");
        }
    }

    /**
     * Whether {@code image} no longer places this hosted replica here: its topic is gone, or the partition's replicas
     * leave this broker out with no reassignment in progress (one completed while this broker was down, or a deletion
     * it missed, when it restarts from a metadata snapshot taken after them).
     */
    private boolean orphaned(MetadataImage image, LocalPartitionIndex.Entry entry) {
        Optional<TopicInfo> topic = image.topicById(entry.topicId());
        if (topic.isEmpty()) {
            return true;
        }
        TopicPartition tp = new TopicPartition(topic.get().name(), entry.partition());
        return entry.partition() < topic.get().partitionCount()
                && !topic.get().replicas().get(entry.partition()).contains(nodeId)
                && image.reassignment(tp).isEmpty();
    }

    /**
     * Removes hosted replicas that {@code image}, as of the metadata group's commit point, no longer places here and
     * that were already found so at least {@link #ORPHAN_GRACE_MS} earlier: images replayed after a restart are old
     * ones, which the grace lets pass. Runs on the reconciler thread; {@code caughtUp} says the image holds every
     * metadata entry this broker knows committed.
     */
    void sweepOrphans(MetadataImage image, boolean caughtUp, long nowMs) {
        try {
            reconciler.execute(() -> {
                try {
                    sweep(image, caughtUp, nowMs);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("removing replicas metadata no longer places here failed; retrying later", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("shutting down: no sweep of orphaned replicas");
        }
    }

    private void sweep(MetadataImage image, boolean caughtUp, long nowMs) throws IOException {
        Map<UUID, LocalPartitionIndex.Entry> entries = index.entries();
        orphanedSince.keySet().retainAll(entries.keySet());
        boolean removed = false;
        for (LocalPartitionIndex.Entry entry : entries.values()) {
            if (!caughtUp || !orphaned(image, entry)) {
                orphanedSince.remove(entry.groupId());
                continue;
            }
            long since = orphanedSince.computeIfAbsent(entry.groupId(), id -> nowMs);
            if (nowMs - since >= ORPHAN_GRACE_MS) {
                removeLocal(entry, "no longer placed here by metadata (found so since " + (nowMs - since)
                        + " ms ago)");
                orphanedSince.remove(entry.groupId());
                removed = true;
            }
        }
        if (removed) {
            addAssignedPartitions(image);   // a topic created again under a removed replica's name waited for it
        }
    }

    private void removeLocal(LocalPartitionIndex.Entry entry, String why) throws IOException {
        TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
        host.removeGroup(RaftGroupId.valueOf(entry.groupId()));
        onRemoved.accept(tp, entry.groupId());
        Directories.deleteRecursively(partitionDir.apply(tp));
        index.removeAll(List.of(entry.groupId()));
        LOG.info("{}: replica removed here: {}", tp, why);
    }

    /**
     * Adds a group for every partition {@code image} places here that this broker does not host. A partition whose
     * directory an indexed group of another topic id holds (the same name, deleted and created again) waits: either
     * {@code image} is an old one replayed after a restart, which must not bring the deleted topic's group back (both
     * would share the directory, and the deletion's replay would take the new topic's files), or the indexed group is
     * the deleted one, which the deletion's replay or the orphan sweep removes first.
     */
    private void addAssignedPartitions(MetadataImage image) throws IOException {
        Set<RaftGroupId> hosted = Set.copyOf(host.groupIds());
        Map<TopicPartition, UUID> indexed = new HashMap<>();
        index.entries().values().forEach(e -> indexed.put(new TopicPartition(e.topic(), e.partition()), e.groupId()));
        List<LocalPartitionIndex.Entry> added = new ArrayList<>();
        Map<UUID, List<Integer>> replicasByGroup = new HashMap<>();
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                List<Integer> replicas = topic.replicas().get(p);
                UUID gid = PartitionGroups.groupId(topic.topicId(), p);
                boolean otherTopicsGroup = !indexed.getOrDefault(new TopicPartition(topic.name(), p), gid).equals(gid);
                if (!replicas.contains(nodeId) || hosted.contains(RaftGroupId.valueOf(gid)) || otherTopicsGroup) {
                    continue;
                }
                added.add(new LocalPartitionIndex.Entry(gid, topic.topicId(), p, topic.name(), topic.configs()));
                replicasByGroup.put(gid, startingVoters(image, new TopicPartition(topic.name(), p), replicas));
            }
        }
        if (added.isEmpty()) {
            return;
        }
        // The index first, in one write: a group Ratis recovers after a crash must be found in it.
        index.putAll(added);
        inParallel(added, entry -> host.addGroup(RaftGroupId.valueOf(entry.groupId()),
                peers.apply(replicasByGroup.get(entry.groupId()))));
        LOG.info("hosting {} new partition(s): {}", added.size(), added.size() <= 10 ? added.stream()
                .map(e -> e.topic() + "-" + e.partition()).toList() : added.get(0).topic() + "-...");
    }

    /**
     * The voters a new local replica starts its Raft group with: the partition's replicas, or, for a replica a
     * reassignment is adding, the replicas it is moving from. Not among them, the new replica waits (Ratis's
     * initializing state) until the leader makes it a voter and catches it up: started as a voter, it ran an
     * election before the leader knew it, and the leader answered by telling it to shut down.
     */
    private List<Integer> startingVoters(MetadataImage image, TopicPartition tp, List<Integer> replicas) {
        return image.reassignment(tp).filter(moving -> !moving.original().contains(nodeId))
                .map(PartitionReassignment::original).orElse(replicas);
    }

    /** An action on one partition group that may fail with an I/O error. */
    private interface GroupChange {
        void apply(LocalPartitionIndex.Entry entry) throws IOException;
    }

    /**
     * Applies {@code change} to every entry, {@link #GROUP_CHANGES_IN_PARALLEL_MAX} at a time, and waits for all;
     * the first failure is rethrown (the others suppressed in it) after every change finished.
     */
    private void inParallel(List<LocalPartitionIndex.Entry> entries, GroupChange change) throws IOException {
        List<Future<?>> pending = new ArrayList<>();
        for (LocalPartitionIndex.Entry entry : entries) {
            pending.add(groupChanges.submit(() -> {
                change.apply(entry);
                return null;
            }));
        }
        IOException failure = null;
        for (Future<?> future : pending) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while changing partition groups", e);
            } catch (ExecutionException e) {
                IOException cause = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Lets a reconciliation in progress finish its group and index changes; interrupts only an overrun. */
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
        groupChanges.shutdownNow();
    }
}
