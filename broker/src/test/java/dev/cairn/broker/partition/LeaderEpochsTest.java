package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka's leader-epoch answers (KIP-101, KIP-320) from the epochs a partition's batches carry. */
class LeaderEpochsTest {
    private final LeaderEpochs epochs = new LeaderEpochs();

    private static LeaderEpochs.EndOffset end(int epoch, long offset) {
        return new LeaderEpochs.EndOffset(epoch, offset);
    }

    @Test
    void answersAsKafkasLeaderDoes() {
        epochs.onAppended(2, 0);
        epochs.onAppended(2, 5);
        epochs.onAppended(5, 10);
        epochs.onAppended(4, 12);
        assertEquals(Map.of(2, 0L, 5, 10L), epochs.toMap(), "only a larger epoch starts an entry");

        assertEquals(end(2, 10), epochs.endOffsetFor(2, 7, 20), "an epoch ends where the next one starts");
        assertEquals(end(2, 10), epochs.endOffsetFor(3, 7, 20), "an epoch without batches: the one before it");
        assertEquals(end(1, 0), epochs.endOffsetFor(1, 7, 20), "older than every epoch: the first one's start");
        assertEquals(end(5, 20), epochs.endOffsetFor(5, 7, 20), "the last epoch with batches ends at the log end");
        assertEquals(end(5, 20), epochs.endOffsetFor(6, 7, 20));
        assertEquals(end(7, 20), epochs.endOffsetFor(7, 7, 20), "the current epoch, before it appended anything");
        assertEquals(end(-1, -1), epochs.endOffsetFor(8, 7, 20), "an epoch above the current one is unknown");
        assertEquals(end(-1, -1), epochs.endOffsetFor(-1, 7, 20));
    }

    @Test
    void aMovedLogStartDropsTheEpochsBelowIt() {
        epochs.onAppended(1, 0);
        epochs.onAppended(2, 10);
        epochs.onAppended(3, 20);
        epochs.onLogStartMoved(5);
        assertEquals(Map.of(1, 5L, 2, 10L, 3, 20L), epochs.toMap());
        epochs.onLogStartMoved(10);
        assertEquals(Map.of(2, 10L, 3, 20L), epochs.toMap());
        epochs.onLogStartMoved(25);
        assertEquals(Map.of(3, 25L), epochs.toMap(), "the epoch spanning the start begins there");
    }

    @Test
    void keepsAtMostTheLimitDroppingTheOldest() {
        for (int epoch = 1; epoch <= LeaderEpochs.EPOCHS_MAX + 3; epoch++) {
            epochs.onAppended(epoch, epoch * 10L);
        }
        Map<Integer, Long> kept = epochs.toMap();
        assertEquals(LeaderEpochs.EPOCHS_MAX, kept.size());
        assertEquals(4, kept.keySet().iterator().next());
        LeaderEpochs copy = new LeaderEpochs();
        copy.replaceWith(kept);
        assertEquals(kept, copy.toMap());
    }
}
