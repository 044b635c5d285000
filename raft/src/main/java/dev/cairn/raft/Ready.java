package dev.cairn.raft;

import java.util.List;

/**
 * What the runtime must do for a replica, in this order: when {@code snapshot} is not null, restore the state
 * machine from the leader's snapshot at that point (sent with an InstallSnapshot message) and persist it as the
 * start of the log, dropping every persisted entry; persist {@code hardState} (when not null) and {@code entries}
 * (replacing any persisted entries from the first one's index on); then send {@code messages}, then apply {@code
 * committed} in order, then call {@link RaftNode#advance(Ready)}. Messages go out only after the persist, because
 * they may acknowledge the entries, the vote or the snapshot.
 */
public record Ready(SnapshotMeta snapshot, HardState hardState, List<Entry> entries, List<Message> messages,
        List<Entry> committed) {

    public Ready {
        entries = List.copyOf(entries);
        messages = List.copyOf(messages);
        committed = List.copyOf(committed);
    }

    public boolean isEmpty() {
        return snapshot == null && hardState == null && entries.isEmpty() && messages.isEmpty()
                && committed.isEmpty();
    }
}
