package dev.cairn.client;

import java.util.Collection;
import java.util.List;

/**
 * Calls the application's {@link ConsumerRebalanceListener} without letting its exceptions cut a rebalance short:
 * the first exception is kept while the consumer finishes its bookkeeping, and {@link #throwIfFailed()} throws it
 * afterwards wrapped in a {@link CairnRebalanceListenerException}. Later failures in the same rebalance are added
 * to it as suppressed exceptions. Errors ({@link Error}) are not caught.
 */
final class RebalanceListenerInvoker {
    private ConsumerRebalanceListener listener = ConsumerRebalanceListener.NONE;
    private CairnRebalanceListenerException failure;

    void listener(ConsumerRebalanceListener rebalanceListener) {
        listener = rebalanceListener;
    }

    void revoked(Collection<TopicPartition> partitions) {
        try {
            listener.onPartitionsRevoked(partitions);
        } catch (RuntimeException thrown) {
            onFailure("onPartitionsRevoked", partitions, thrown);
        }
    }

    void assigned(Collection<TopicPartition> partitions) {
        try {
            listener.onPartitionsAssigned(partitions);
        } catch (RuntimeException thrown) {
            onFailure("onPartitionsAssigned", partitions, thrown);
        }
    }

    void lost(Collection<TopicPartition> partitions) {
        try {
            listener.onPartitionsLost(partitions);
        } catch (RuntimeException thrown) {
            onFailure("onPartitionsLost", partitions, thrown);
        }
    }

    private void onFailure(String callback, Collection<TopicPartition> partitions, RuntimeException thrown) {
        if (failure != null) {
            failure.addSuppressed(thrown);
            return;
        }
        failure = new CairnRebalanceListenerException("the rebalance listener's " + callback + " threw for "
                + List.copyOf(partitions) + "; the rebalance was completed without it, so poll may be called again",
                thrown);
    }

    /** Throws (once) the failure of a listener call since the last check, if there was one. */
    void throwIfFailed() {
        CairnRebalanceListenerException failed = failure;
        if (failed != null) {
            failure = null;
            throw failed;
        }
    }
}
