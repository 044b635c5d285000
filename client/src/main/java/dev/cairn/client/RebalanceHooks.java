package dev.cairn.client;

import dev.cairn.client.internal.GroupMembership;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The consumer side of a rebalance, on the consumer's thread: the commit before joining, the listener calls (through
 * {@link RebalanceListenerInvoker}, so a throwing listener cannot leave the assignment half changed) and the changes
 * to the consumer's assignment.
 */
final class RebalanceHooks implements GroupMembership.Hooks {
    private final Set<TopicPartition> owned;
    private final Consumer<TopicPartition> addPartition;
    private final RebalanceListenerInvoker listener;
    private final Runnable autoCommitSync;
    private final Runnable onAssignmentChanged;

    /**
     * @param owned the consumer's assigned partitions, a live view that removals write through
     * @param addPartition adds a partition to the consumer's assignment, without a position yet
     * @param autoCommitSync commits the positions synchronously when enable.auto.commit is set
     * @param onAssignmentChanged tells the consumer to refresh metadata for its new partitions
     */
    RebalanceHooks(Set<TopicPartition> owned, Consumer<TopicPartition> addPartition,
                   RebalanceListenerInvoker listener, Runnable autoCommitSync, Runnable onAssignmentChanged) {
        this.owned = owned;
        this.addPartition = addPartition;
        this.listener = listener;
        this.autoCommitSync = autoCommitSync;
        this.onAssignmentChanged = onAssignmentChanged;
    }

    @Override
    public void onJoinPrepare(boolean cooperative) {
        autoCommitSync.run();
        if (!cooperative) {
            Set<TopicPartition> revoked = Set.copyOf(owned);
            listener.revoked(revoked);
            owned.clear();
        }
    }

    @Override
    public List<TopicPartition> ownedPartitions() {
        return List.copyOf(owned);
    }

    @Override
    public boolean onJoinComplete(List<TopicPartition> newAssignment, boolean cooperative) {
        Set<TopicPartition> revoked = new HashSet<>(owned);
        newAssignment.forEach(revoked::remove);
        List<TopicPartition> added = new ArrayList<>();
        for (TopicPartition partition : newAssignment) {
            if (!owned.contains(partition)) {
                added.add(partition);
            }
        }
        if (!revoked.isEmpty()) {
            listener.revoked(Set.copyOf(revoked));
            owned.removeAll(revoked);
        }
        added.forEach(addPartition);
        onAssignmentChanged.run();
        listener.assigned(List.copyOf(added));
        return cooperative && !revoked.isEmpty();
    }

    @Override
    public void onPartitionsLost() {
        Set<TopicPartition> lost = Set.copyOf(owned);
        owned.clear();
        if (!lost.isEmpty()) {
            listener.lost(lost);
        }
    }
}
