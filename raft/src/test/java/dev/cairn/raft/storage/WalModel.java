package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a RaftWal must recover, kept by a test beside it: the meaning of each append (RaftWal's Javadoc) applied to
 * plain lists, with no segments and no deletion, so that a recovery can be compared against it.
 */
final class WalModel {

    /** One group's state; mutable, copied at each sync. */
    static final class Group {
        HardState hardState = HardState.INITIAL;
        SnapshotMeta snapshot = SnapshotMeta.NONE;
        final List<Entry> entries = new ArrayList<>();

        long lastIndex() {
            return entries.isEmpty() ? snapshot.raftIndex() : entries.get(entries.size() - 1).raftIndex();
        }

        /** The term of the entry at {@code raftIndex}, which must be after the snapshot and at most the last. */
        long termAt(long raftIndex) {
            return entries.get((int) (raftIndex - snapshot.raftIndex() - 1)).term();
        }

        Group copy() {
            Group copy = new Group();
            copy.hardState = hardState;
            copy.snapshot = snapshot;
            copy.entries.addAll(entries);
            return copy;
        }
    }

    final Map<Integer, Group> groups = new HashMap<>();

    void append(int group, HardState hardState, List<Entry> entries) {
        if (hardState == null && entries.isEmpty()) {
            return;
        }
        Group model = groups.computeIfAbsent(group, g -> new Group());
        if (hardState != null) {
            model.hardState = hardState;
        }
        for (Entry entry : entries) {
            int position = (int) (entry.raftIndex() - model.snapshot.raftIndex());
            model.entries.subList(position - 1, model.entries.size()).clear();
            model.entries.add(entry);
        }
    }

    void appendSnapshot(int group, SnapshotMeta snapshot) {
        Group model = groups.computeIfAbsent(group, g -> new Group());
        if (snapshot.equals(model.snapshot)) {
            return;
        }
        boolean held = snapshot.raftIndex() <= model.lastIndex() && model.termAt(snapshot.raftIndex()) == snapshot.term();
        if (held) {
            model.entries.subList(0, (int) (snapshot.raftIndex() - model.snapshot.raftIndex())).clear();
        } else {
            model.entries.clear();
        }
        model.snapshot = snapshot;
    }

    void removeGroup(int group) {
        groups.remove(group);
    }

    WalModel copy() {
        WalModel copy = new WalModel();
        groups.forEach((group, model) -> copy.groups.put(group, model.copy()));
        return copy;
    }

    /** What RaftWal.open must return. */
    Map<Integer, RaftWal.GroupState> states() {
        Map<Integer, RaftWal.GroupState> states = new HashMap<>();
        groups.forEach((group, model) -> states.put(group,
                new RaftWal.GroupState(model.hardState, model.snapshot, List.copyOf(model.entries))));
        return states;
    }
}
