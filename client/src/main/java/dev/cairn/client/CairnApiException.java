package dev.cairn.client;

import dev.cairn.protocol.ErrorCode;

/**
 * The broker answered with a Kafka error code. Retriable when the code is (Kafka's {@code Errors}; shared docs
 * kafka-protocol.md A.4), e.g. NOT_LEADER_OR_FOLLOWER is, MESSAGE_TOO_LARGE is not, unless the call knows better:
 * the controller's answer about a topic to CreateTopics, DeleteTopics or CreatePartitions (an unknown topic, say)
 * is final, as kafka-clients' Admin treats it.
 */
public class CairnApiException extends CairnException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode errorCode;

    public CairnApiException(ErrorCode errorCode, String context) {
        this(errorCode, context, errorCode.retriable());
    }

    public CairnApiException(ErrorCode errorCode, String context, boolean retriable) {
        super(context + ": " + errorCode + " (" + errorCode.code() + ")", retriable);
        this.errorCode = errorCode;
    }

    public ErrorCode errorCode() {
        return errorCode;
    }
}
