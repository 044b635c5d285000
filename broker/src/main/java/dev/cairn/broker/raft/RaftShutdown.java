package dev.cairn.broker.raft;

import dev.cairn.broker.offsets.OffsetStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a broker's Raft side in bounded time, also when every other broker of the cluster closes at the same moment
 * (issue 16 item 10: three brokers stopped together had not finished after 150 s, holding elections among themselves
 * meanwhile). In this order:
 * <ol>
 *   <li>Group changes stop: the reconciler ends the change in progress, within
 *   {@link PartitionGroupReconciler#RECONCILE_SHUTDOWN_WAIT_MS}.</li>
 *   <li>The Raft clients (to partition leaders on other brokers, and the metadata group's) start closing, all at once,
 *   each on a thread of its own.</li>
 *   <li>The Raft server closes. Each division first stops its election timer, any election in progress and its
 *   leadership, so from then on this broker neither campaigns, nor votes, nor replicates; then it applies what it
 *   knows committed, flushes its Raft log and closes its partition. Nothing in it waits for a quorum. Waited for
 *   within {@link #RAFT_SERVER_CLOSE_WAIT_MS}.</li>
 *   <li>The clients are waited for, within {@link LeaderClients#CLOSE_WAIT_MS} of their start.</li>
 *   <li>The offset store closes, within {@link #OFFSET_STORE_CLOSE_WAIT_MS}.</li>
 * </ol>
 * The server used to close last, after the clients one by one. A client with requests outstanding at a leader that
 * was closing too takes seconds to close (gRPC's graceful channel close), so with many of them the close took
 * minutes; meanwhile this broker's divisions, their leaders gone, kept electing with the other closing brokers, which
 * were waiting on their own clients the same way.
 *
 * <p>A step that overruns its bound goes on in the background ({@link BoundedClose}) and the close goes on. Closing is
 * not a crash, but it need not finish what it cannot: requests in flight fail, and what was acknowledged is in a
 * majority of Raft logs already (and in this broker's, when it was one of them), which the next start replays.
 */
final class RaftShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(RaftShutdown.class);
    /**
     * How long the close waits for the Raft server, whose divisions close in parallel. A division waits for its apply
     * thread, which may be applying a large entry or taking the snapshot Ratis takes at stop; a second or two is usual.
     */
    static final long RAFT_SERVER_CLOSE_WAIT_MS = 15_000;
    /** How long the close waits for the offset store (RocksDB; its writes are synced, so it has little to do). */
    static final long OFFSET_STORE_CLOSE_WAIT_MS = 3_000;
    /** The longest {@link #close} takes: its waits one after the other, the clients' overlapping the server's. */
    static final long CLOSE_MS_MAX = PartitionGroupReconciler.RECONCILE_SHUTDOWN_WAIT_MS
            + Math.max(RAFT_SERVER_CLOSE_WAIT_MS, LeaderClients.CLOSE_WAIT_MS) + OFFSET_STORE_CLOSE_WAIT_MS;

    private RaftShutdown() {
    }

    /**
     * Closes the Raft side of broker {@code nodeId} as described above, within {@link #CLOSE_MS_MAX}.
     *
     * @param releaseWaiters ends every wait for this broker's metadata apply (they would wait for nothing)
     */
    static void close(int nodeId, PartitionGroupReconciler reconciler, LeaderClients leaderClients,
            MetadataSubmitter metadataClient, Runnable releaseWaiters, RaftHost host, OffsetStore offsets) {
        long startNanos = System.nanoTime();
        reconciler.close();
        long clientsDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LeaderClients.CLOSE_WAIT_MS);
        List<BoundedClose> clients = new ArrayList<>(leaderClients.closeAll());
        clients.add(BoundedClose.start("metadata group client", metadataClient::close));
        releaseWaiters.run();
        boolean serverClosed = BoundedClose.run("Raft server", host::close, RAFT_SERVER_CLOSE_WAIT_MS);
        int clientsLeft = BoundedClose.awaitAll("Raft clients", clients,
                TimeUnit.NANOSECONDS.toMillis(clientsDeadline - System.nanoTime()));
        // Safe also when the server is still closing: the store's close waits for writes in progress, and a write
        // after it fails, which takes that partition offline here until the restart replays the entry.
        boolean offsetsClosed = BoundedClose.run("offset store", offsets::close, OFFSET_STORE_CLOSE_WAIT_MS);
        LOG.info("Raft server of node {} {}closed in {} ms{}{}", nodeId, serverClosed ? "" : "not fully ",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                clientsLeft == 0 ? "" : "; " + clientsLeft + " Raft clients still closing",
                offsetsClosed ? "" : "; the offset store still closing");
    }
}
