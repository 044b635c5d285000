package dev.cairn.raft.runtime;

/**
 * A proposal that will not be applied through this engine: {@link #reason()} says why and whether trying again
 * (elsewhere, or later) may work.
 */
public final class ProposalRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a proposal was refused. */
    public enum Reason {
        /** This replica does not lead the group; {@link #leaderHint()} names the one it follows, if any. */
        NOT_LEADER,
        /** The group holds its maximum of uncommitted entries, or the loop's queue is full: try again later. */
        BUSY,
        /** A later leader replaced the proposed entry; it was not applied. */
        REPLACED,
        /** The group does not exist on this engine (never created, or removed). */
        UNKNOWN_GROUP,
        /** The engine is closing. */
        CLOSED
    }

    private final Reason reason;
    private final int leaderHint;

    public ProposalRefusedException(Reason reason, int leaderHint, String message) {
        super(message, null, false, false);
        this.reason = reason;
        this.leaderHint = leaderHint;
    }

    public Reason reason() {
        return reason;
    }

    /** The leader this replica knows of, or {@link dev.cairn.raft.RaftNode#NONE}. */
    public int leaderHint() {
        return leaderHint;
    }
}
