package dev.cairn.broker.raft;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One step of a broker's close, run on a daemon thread of its own so that the close waits for it at most a named
 * bound. Ratis's own closes wait without a bound (a Raft server waits up to a day for each division, a division for
 * its apply thread, which may wait on a peer that is gone), and a gRPC channel with calls outstanding takes seconds
 * to close. A step that overruns its bound is logged with where its thread stands and left to finish in the
 * background; the close goes on. The process is exiting, and what was acknowledged is already in a majority's Raft
 * logs.
 */
final class BoundedClose {
    private static final Logger LOG = LoggerFactory.getLogger(BoundedClose.class);
    /** Stack frames of an overrunning step logged, enough to see what it waits on. */
    private static final int STACK_FRAMES_LOGGED_MAX = 12;

    /** A close action that may throw. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private final String what;
    private final Thread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private BoundedClose(String what, Step step) {
        this.what = what;
        this.thread = new Thread(() -> {
            try {
                step.run();
            } catch (Exception e) {
                done.completeExceptionally(e);
            } finally {
                // Also after an Error: the step has ended either way (an Error still reaches the thread's handler).
                done.complete(null);
            }
        }, "cairn-close-" + what.replace(' ', '-'));
        this.thread.setDaemon(true);
    }

    /** Starts closing {@code what} now, on its own thread. */
    static BoundedClose start(String what, Step step) {
        BoundedClose close = new BoundedClose(what, step);
        close.thread.start();
        return close;
    }

    /** Runs {@code step} and waits for it at most {@code waitMs}; whether it finished in time. */
    static boolean run(String what, Step step, long waitMs) {
        return start(what, step).await(waitMs);
    }

    /**
     * Waits until the step is done or {@code waitMs} passed (nothing when negative). True when it finished, failed
     * included (a failure is logged): the step no longer runs. False when it is still running.
     */
    boolean await(long waitMs) {
        try {
            done.get(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            LOG.warn("closing {} failed", what, e.getCause());
            return true;
        } catch (TimeoutException e) {
            String stack = Arrays.stream(thread.getStackTrace()).limit(STACK_FRAMES_LOGGED_MAX)
                    .map(frame -> "\n\tat " + frame).collect(Collectors.joining());
            LOG.warn("closing {} did not finish within {} ms; it goes on in the background, the close does not wait "
                    + "for it. It is at:{}", what, Math.max(0, waitMs), stack);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits for steps started together, all of them within {@code waitMs}; the ones still running then are counted
     * and left to finish in the background. Returns how many were left.
     */
    static int awaitAll(String what, java.util.List<BoundedClose> steps, long waitMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        int left = 0;
        for (BoundedClose step : steps) {
            try {
                step.done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                LOG.warn("closing {} failed", step.what, e.getCause());
            } catch (TimeoutException e) {
                left++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return steps.size();
            }
        }
        if (left > 0) {
            LOG.warn("closing {}: {} of {} did not finish within {} ms; they go on in the background, the close does "
                    + "not wait for them", what, left, steps.size(), waitMs);
        }
        return left;
    }
}
