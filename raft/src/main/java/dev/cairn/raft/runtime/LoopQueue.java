package dev.cairn.raft.runtime;

import dev.cairn.raft.RaftNode;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loop's bounded task queue. A task that holds a future ({@link Refusable}) is refused, rather than forgotten,
 * when the loop stops before running it: whoever drains the queue first (the loop as it ends, or an offer that finds
 * the loop stopped) takes each task once.
 */
final class LoopQueue {

    /** A queued task that holds a future to fail when the loop stops before running it. */
    interface Refusable extends Runnable {
        void refuse(ProposalRefusedException refused);
    }

    private final BlockingQueue<Runnable> tasks;
    private volatile boolean open = true;

    LoopQueue(int capacity) {
        this.tasks = new ArrayBlockingQueue<>(capacity);
    }

    /** Queues a task; false when the queue is full or closed. */
    boolean offer(Runnable task) {
        if (!open || !tasks.offer(task)) {
            return false;
        }
        if (!open) {
            // Closed while this was queued: refuse what is left (each task is taken once, by one drainer).
            refuseAll(stopped());
        }
        return true;
    }

    Runnable poll() {
        return tasks.poll();
    }

    Runnable poll(long nanos) throws InterruptedException {
        return nanos > 0 ? tasks.poll(nanos, TimeUnit.NANOSECONDS) : tasks.poll();
    }

    /** Takes no more tasks, and refuses those queued. */
    void close() {
        open = false;
        refuseAll(stopped());
    }

    private static ProposalRefusedException stopped() {
        return new ProposalRefusedException(ProposalRefusedException.Reason.CLOSED, RaftNode.NONE,
                "the Raft engine stopped");
    }

    private void refuseAll(ProposalRefusedException refused) {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            if (task instanceof Refusable refusable) {
                refusable.refuse(refused);
            }
        }
    }
}
