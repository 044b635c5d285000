package dev.cairn.broker.group;

import dev.cairn.protocol.ErrorCode;

/** The answer to a SyncGroup: the member's assignment as the leader computed it, or an error. */
public record SyncResult(ErrorCode error, byte[] assignment) {
    static final byte[] NO_ASSIGNMENT = new byte[0];

    public static SyncResult error(ErrorCode error) {
        return new SyncResult(error, NO_ASSIGNMENT);
    }
}
