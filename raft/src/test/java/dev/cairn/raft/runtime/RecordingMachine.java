package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import java.util.ArrayList;
import java.util.List;

/** A state machine that keeps every entry applied to it, in order (nothing across restarts). */
final class RecordingMachine implements CommandMachine {
    private final List<Entry> applied = new ArrayList<>();

    @Override
    public long appliedIndex() {
        return 0;
    }

    @Override
    public synchronized Object apply(Entry entry) {
        if (!applied.isEmpty() && applied.get(applied.size() - 1).raftIndex() + 1 != entry.raftIndex()) {
            throw new AssertionError("applied " + entry.raftIndex() + " after " + applied.get(applied.size() - 1));
        }
        applied.add(entry);
        return entry.raftIndex();
    }

    /** The commands applied so far (the new leaders' no-ops left out). */
    @Override
    public synchronized List<String> commands() {
        List<String> commands = new ArrayList<>();
        for (Entry entry : applied) {
            if (entry.data().length > 0) {
                commands.add(new String(entry.data(), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return commands;
    }
}
