package dev.cairn.broker.partition;

import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.protocol.ErrorCode;
import java.util.Map;

/**
 * The topic configs one partition's log follows: those it was created with until a {@link Command.Reconfigure}
 * applies, then the last one applied, always over the broker's log settings. Written on the apply thread; read on any.
 */
final class TopicConfigState {
    private final Log log;
    /** The broker's log settings, which the topic configs override. */
    private final LogConfig brokerLogConfig;
    /** The topic configs the partition was created with: what the log follows before any Reconfigure. */
    private final Map<String, String> initial;
    private volatile Map<String, String> current;

    TopicConfigState(Log log, LogConfig brokerLogConfig, Map<String, String> initial) {
        this.log = log;
        this.brokerLogConfig = brokerLogConfig;
        this.initial = Map.copyOf(initial);
        this.current = this.initial;
    }

    Map<String, String> current() {
        return current;
    }

    /**
     * Makes the log follow {@code configs} over the broker's settings. Values were validated before replication;
     * one that still fails is refused alike on every replica, and the log keeps its settings.
     */
    Result apply(Map<String, String> configs) {
        LogConfig next;
        try {
            next = brokerLogConfig.withTopicOverrides(configs);
        } catch (IllegalArgumentException | ArithmeticException e) {
            return new Result.Rejected(ErrorCode.INVALID_CONFIG, "topic configs " + configs + " rejected: "
                    + e.getMessage());
        }
        log.reconfigure(next);
        current = Map.copyOf(configs);
        return Result.RECONFIGURED;
    }

    /** The configs a snapshot recorded; null (a snapshot from before reconfiguration) means the initial ones. */
    void restore(Map<String, String> recorded) {
        apply(recorded == null ? initial : recorded);
    }
}
