package dev.cairn.broker.partition;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A partition leader's side of KIP-890's verification (docs/transactions.md), held on the leader only and never
 * replicated. A transactional batch that would open a transaction here (its producer has none open in the leader's
 * placements) is placed only when it was verified with the coordinator (the partition is in the producer's ongoing
 * transaction) and no marker of that producer was placed since the verification began: so a zombie's late batch
 * cannot open a transaction nobody will end, nor slip into the producer's next one.
 *
 * <p>The produce path {@link #register}s a batch (by producer id, epoch and first sequence) before it asks the
 * coordinator; the planner admits it ({@link #admit}) as it places it, and a marker placed in between
 * ({@link #onPlaced}) cancels the registration. The producers with an open transaction are the planner's view
 * (placements, not only applied entries), reset with every planner rebuild. Thread-safe.
 */
public final class TransactionVerifications {
    /** Registrations kept at most; past it the oldest is dropped (its batch is refused, retried and verified anew). */
    public static final int PENDING_MAX = 10_000;
    /** Producers with a transaction open here at most (as many as the producer state keeps); past it none opens. */
    public static final int OPEN_MAX = ProducerStateTable.PRODUCERS_MAX;

    /** The partition's bound on aborted transactions ({@link TransactionIndex#ABORTED_MAX}; smaller in tests). */
    private final int abortedMax;
    /**
     * The aborted transactions the partition holds once every placement so far is applied: the applied count at the
     * last rebuild, plus the aborts placed since, less those the log start took away since ({@link #onAbortedDropped}).
     */
    private int abortedHeld;

    private final Set<Long> open = new HashSet<>();
    /** The engine path: the leader term the registrations were made in ({@link #admitInTerm}); -1 before any. */
    private long registrationsTerm = -1;
    /** Registrations by producer (a marker cancels its producer's), and all of them oldest first (the bound). */
    private final Map<Long, Set<Pending>> byProducer = new HashMap<>();
    private final Map<Pending, Boolean> pending = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Pending, Boolean> eldest) {
            if (size() <= PENDING_MAX) {
                return false;
            }
            forget(eldest.getKey());
            return true;
        }
    };

    private record Pending(long producerId, short epoch, int firstSequence) {
    }

    public TransactionVerifications() {
        this(TransactionIndex.ABORTED_MAX);
    }

    TransactionVerifications(int abortedMax) {
        this.abortedMax = abortedMax;
    }

    /**
     * Whether another transaction may open here: every open one may still abort, and the aborted ones held must stay
     * within {@link TransactionIndex#ABORTED_MAX}.
     */
    synchronized boolean hasRoomToOpen() {
        return (long) abortedHeld + open.size() < abortedMax;
    }

    /** Whether the producer has a transaction open here as the leader placed it (its batches need no verification). */
    public synchronized boolean isOpen(long producerId) {
        return open.contains(producerId);
    }

    /** A batch about to be verified with its coordinator: admitted unless a marker of its producer comes first. */
    public synchronized void register(long producerId, short epoch, int firstSequence) {
        Pending registration = new Pending(producerId, epoch, firstSequence);
        byProducer.computeIfAbsent(producerId, id -> new HashSet<>()).add(registration);
        pending.put(registration, Boolean.TRUE);
    }

    private void forget(Pending registration) {
        Set<Pending> own = byProducer.get(registration.producerId());
        if (own != null && own.remove(registration) && own.isEmpty()) {
            byProducer.remove(registration.producerId());
        }
    }

    /**
     * Whether a transactional batch may be placed: its producer has a transaction open here, or the batch was
     * registered and no marker of its producer was placed since. The registration is used up.
     */
    synchronized boolean admit(long producerId, short epoch, int firstSequence) {
        if (open.contains(producerId)) {
            return true;
        }
        if (open.size() >= OPEN_MAX) {
            return false;
        }
        Pending registration = new Pending(producerId, epoch, firstSequence);
        if (pending.remove(registration) == null) {
            return false;
        }
        forget(registration);
        return true;
    }

    /** A placement the leader made: a transaction's batch opens it, a marker ends it and cancels registrations. */
    synchronized void onPlaced(Command.AppendAt at) {
        if (at.txn() == TxnRole.DATA) {
            open.add(at.producerId());
        } else if (at.txn().isMarker()) {
            if (open.remove(at.producerId()) && at.txn() == TxnRole.ABORT) {
                abortedHeld++;
            }
            cancel(at.producerId());
        }
    }

    private void cancel(long producerId) {
        Set<Pending> cancelled = byProducer.remove(producerId);
        if (cancelled != null) {
            cancelled.forEach(pending::remove);
        }
    }

    /**
     * The engine path's admission, where offsets are decided as entries apply ({@link Command.AppendChecked}): the
     * term to stamp on a transactional batch proposed now, while this replica leads in {@code term}, or -1 when the
     * batch was not registered in that term or a marker of its producer was proposed since. The registration is used
     * up. Registrations from another term are dropped first: markers another leader wrote meanwhile never passed
     * {@link #cancelInTerm} here. The caller holds this object's lock from here until the batch is proposed, so that
     * proposals and markers reach the Raft log in the order they passed here.
     */
    public synchronized long admitInTerm(long term, long producerId, short epoch, int firstSequence) {
        observeTerm(term);
        Pending registration = new Pending(producerId, epoch, firstSequence);
        if (pending.remove(registration) == null) {
            return -1;
        }
        forget(registration);
        return term;
    }

    /** The engine path: a marker of {@code producerId} is proposed in {@code term}; its registrations are void. */
    public synchronized void cancelInTerm(long term, long producerId) {
        observeTerm(term);
        cancel(producerId);
    }

    private void observeTerm(long term) {
        if (term != registrationsTerm) {
            pending.clear();
            byProducer.clear();
            registrationsTerm = term;
        }
    }

    /**
     * The log start moved past {@code count} applied aborted transactions (on every replica, in apply order; only the
     * leader's count is used): their room is free again without waiting for a rebuild. A rebuild racing it reads a
     * count at most this much too high, never too low.
     */
    synchronized void onAbortedDropped(int count) {
        abortedHeld = Math.max(0, abortedHeld - count);
    }

    /**
     * The planner was rebuilt from the applied state: the producers with a transaction open there and the number of
     * aborted transactions it holds (the placements after it follow by replay, through {@link #onPlaced}).
     *
     * <p>In a new term the registrations are dropped: markers another leader placed meanwhile never passed
     * {@link #onPlaced} here, so a batch verified before cannot be trusted; refused, it is retried and verified anew.
     * Within the same term (a placement was refused or cancelled, and the view is rebuilt) they are kept: every marker
     * of the term was placed by this leader and cancelled its producer's registrations as it was placed. Dropping
     * them there too refused every batch whose verification was out at each rebuild, and under three-broker load the
     * retried batches met the next rebuild in turn: transactions could not write for a minute and timed out.
     */
    synchronized void reset(Set<Long> producerIds, int abortedTransactions, boolean sameTerm) {
        open.clear();
        open.addAll(producerIds);
        abortedHeld = abortedTransactions;
        if (!sameTerm) {
            pending.clear();
            byProducer.clear();
        }
    }
}
