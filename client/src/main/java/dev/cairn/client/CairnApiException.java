package dev.cairn.client;

import dev.cairn.protocol.ErrorCode;

/**
 * The broker answered with a Kafka error code. Retriable exactly when the code is (Kafka's {@code Errors}; shared
 * docs kafka-protocol.md A.4), e.g. NOT_LEADER_OR_FOLLOWER is, MESSAGE_TOO_LARGE is not.
 */
public class CairnApiException extends CairnException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode errorCode;

    public CairnApiException(ErrorCode errorCode, String context) {
        super(context + ": " + errorCode + " (" + errorCode.code() + ")", errorCode.retriable());
        this.errorCode = errorCode;
    }

    public ErrorCode errorCode() {
        return errorCode;
    }
}
