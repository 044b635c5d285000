package dev.cairn.raft;

/** A replica's role in its group. {@code PRE_CANDIDATE} asks for pre-votes before it changes term. */
public enum Role {
    FOLLOWER, PRE_CANDIDATE, CANDIDATE, LEADER
}
