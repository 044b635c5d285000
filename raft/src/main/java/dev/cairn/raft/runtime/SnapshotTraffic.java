package dev.cairn.raft.runtime;

import java.util.Arrays;
import java.util.List;

/**
 * What engines exchange to ship a state machine snapshot, beside the core's messages: the core names the snapshot
 * a follower needs ({@code InstallSnapshot}), the leader's engine sends it in {@link Chunk}s, one at a time, each
 * answered by an {@link Ack}, and the follower's engine steps the {@code InstallSnapshot} into its core only once the
 * last chunk is in.
 */
public sealed interface SnapshotTraffic {

    int from();

    int to();

    long term();

    long snapshotIndex();

    /**
     * Bytes {@code [offset, offset + data.length)} of the snapshot at {@code snapshotIndex}/{@code snapshotTerm},
     * whose configuration is {@code voters} (empty when not known).
     */
    record Chunk(int from, int to, long term, long snapshotIndex, long snapshotTerm, List<Integer> voters, long offset,
            boolean last, byte[] data) implements SnapshotTraffic {

        public Chunk {
            voters = List.copyOf(voters);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Chunk c && c.from == from && c.to == to && c.term == term
                    && c.snapshotIndex == snapshotIndex && c.snapshotTerm == snapshotTerm && c.voters.equals(voters)
                    && c.offset == offset
                    && c.last == last && Arrays.equals(c.data, data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(snapshotIndex) * 31 + Long.hashCode(offset);
        }

        @Override
        public String toString() {
            return "Chunk[" + from + "->" + to + " term " + term + " snapshot " + snapshotIndex + "/" + snapshotTerm
                    + " at " + offset + " +" + data.length + (last ? " last]" : "]");
        }
    }

    /** The follower holds the snapshot's bytes before {@code nextOffset} (all of them once the last chunk is in). */
    record Ack(int from, int to, long term, long snapshotIndex, long nextOffset) implements SnapshotTraffic {
    }
}
