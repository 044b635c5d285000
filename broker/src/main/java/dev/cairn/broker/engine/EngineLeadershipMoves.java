package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves leaderships of the engine's partitions this broker leads: away from a replica that went offline here
 * (a storage failure), to an in-sync replica; and, when {@code auto.leader.rebalance.enable}, back to the preferred
 * replica (the first of the partition's replicas). A target must be heard from within {@link #PEER_FRESH_MS} and,
 * for a rebalance, hold every committed entry as this leader's engine sees it (metadata's in-sync list can be a
 * check old, and a broker just restarted is in it before it is reachable): a transfer refuses writes until it ends,
 * so one to a replica that cannot take over costs an election timeout of writes. One transfer per partition at a
 * time, at most {@link #MOVES_PER_PASS_MAX} started per pass.
 */
final class EngineLeadershipMoves {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLeadershipMoves.class);
    /** Transfers started by one pass, so that a broker coming back does not take every leadership at once. */
    static final int MOVES_PER_PASS_MAX = 64;
    /** A target broker's engine must have been heard from this recently. */
    static final long PEER_FRESH_MS = 1_000;

    /** Starts a transfer; completes with whether the target leads in time. */
    interface Transfer {
        CompletableFuture<Boolean> transfer(TopicPartition tp, int toNode, long timeoutMs);
    }

    private final int nodeId;
    private final EngineGroups groups;
    private final EngineLeaderships leaderships;
    private final Supplier<MetadataImage> images;
    private final Transfer transfer;
    private final Set<TopicPartition> inFlight = ConcurrentHashMap.newKeySet();

    EngineLeadershipMoves(int nodeId, EngineGroups groups, EngineLeaderships leaderships,
            Supplier<MetadataImage> images, Transfer transfer) {
        this.nodeId = nodeId;
        this.groups = groups;
        this.leaderships = leaderships;
        this.images = images;
        this.transfer = transfer;
    }

    /** Hands the leadership of partitions offline here to an in-sync replica on a live, reachable broker. */
    void handOverOffline(long transferTimeoutMs) {
        MetadataImage image = images.get();
        int started = 0;
        for (TopicPartition tp : groups.hostedPartitions()) {
            EngineGroups.Hosted hosted = groups.hosted(tp);
            if (started >= MOVES_PER_PASS_MAX || hosted == null || hosted.machine().offlineCause() == null
                    || !leaderships.serving(hosted.group()) || inFlight.contains(tp)) {
                continue;
            }
            Optional<Integer> target = image.partitionState(tp).map(PartitionState::isr).orElse(List.of()).stream()
                    .filter(replica -> replica != nodeId && reachable(image, replica)).findFirst();
            if (target.isPresent()) {
                LOG.info("{}: offline here; handing its leadership to broker {}", tp, target.get());
                start(tp, target.get(), transferTimeoutMs);
                started++;
            }
        }
    }

    /** Hands leaderships back to preferred replicas that are reachable and hold every committed entry. */
    void balance(long transferTimeoutMs) {
        MetadataImage image = images.get();
        int started = 0;
        for (TopicPartition tp : groups.hostedPartitions()) {
            EngineGroups.Hosted hosted = groups.hosted(tp);
            Optional<TopicInfo> topic = image.topic(tp.topic());
            if (started >= MOVES_PER_PASS_MAX || hosted == null || topic.isEmpty() || inFlight.contains(tp)
                    || tp.partition() >= topic.get().partitionCount() || !leaderships.serving(hosted.group())) {
                continue;
            }
            int preferred = topic.get().replicas().get(tp.partition()).get(0);
            if (preferred == nodeId || !reachable(image, preferred)) {
                continue;
            }
            started++;
            inFlight.add(tp);
            groups.engine().replication(hosted.group()).whenComplete((replication, error) -> {
                boolean caughtUp = error == null && replication.leading()
                        && replication.matchIndex().getOrDefault(preferred + 1, 0L) >= replication.commitIndex();
                inFlight.remove(tp);
                if (caughtUp) {
                    LOG.info("{}: handing its leadership back to its preferred replica, broker {}", tp, preferred);
                    start(tp, preferred, transferTimeoutMs);
                }
            });
        }
    }

    private boolean reachable(MetadataImage image, int node) {
        return !image.deadBrokers().contains(node) && groups.engine().peerSilentMs(node + 1) <= PEER_FRESH_MS;
    }

    private void start(TopicPartition tp, int toNode, long timeoutMs) {
        if (!inFlight.add(tp)) {
            return;
        }
        transfer.transfer(tp, toNode, timeoutMs).whenComplete((led, error) -> {
            inFlight.remove(tp);
            if (error != null || !Boolean.TRUE.equals(led)) {
                LOG.info("{}: broker {} did not take its leadership within {} ms", tp, toNode, timeoutMs);
            }
        });
    }
}
