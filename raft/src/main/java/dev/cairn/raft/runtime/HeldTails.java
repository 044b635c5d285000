package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts back, before an append goes to a follower, the tails of entries the engine's log kept without them (entries
 * replayed after a restart by a machine that {@link GroupStateMachine#holdsTails}): each is read from the machine.
 * Loop thread.
 */
final class HeldTails {
    private static final Logger LOG = LoggerFactory.getLogger(HeldTails.class);

    private HeldTails() {
    }

    /**
     * The append with every entry whole, or null when the machine no longer has a tail (the append is not sent; the
     * leader tries again, and the machine's next snapshot lets the core send that instead).
     */
    static Message.AppendRequest readBack(GroupReplica replica, Message.AppendRequest append) {
        List<Entry> entries = append.entries();
        int first = 0;
        while (first < entries.size() && !entries.get(first).tailHeld()) {
            first++;
        }
        if (first == entries.size()) {
            return append;
        }
        List<Entry> whole = new ArrayList<>(entries.subList(0, first));
        for (Entry entry : entries.subList(first, entries.size())) {
            if (!entry.tailHeld()) {
                whole.add(entry);
                continue;
            }
            ByteBuffer tail = replica.machine.readTail(entry);
            if (tail == null || tail.remaining() != entry.heldTailBytes()) {
                LOG.debug("group {}: the tail of {} is gone from its machine; not sent to replica {}", replica.group,
                        entry, append.to());
                return null;
            }
            whole.add(entry.withTail(tail));
        }
        return new Message.AppendRequest(append.from(), append.to(), append.term(), append.prevIndex(),
                append.prevTerm(), whole, append.commitIndex());
    }
}
