package dev.cairn.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Drops Ratis's ERROR-with-stack-trace for a request that reached a group this broker is still adding
 * ({@code ServerNotReadyException}: "is not in [STARTING, RUNNING]: current state is NEW"). When a topic is created
 * every broker adds its replicas' groups at its own pace, and a leader elected on a faster broker heartbeats the
 * slower ones before they are ready: an ordinary, transient state of start-up, which Raft retries. It filled a
 * broker's log with thousands of lines per topic creation. Every other Ratis event passes as before.
 */
public final class RatisNoiseFilter extends TurboFilter {
    private static final String RATIS_LOGGERS = "org.apache.ratis.";
    private static final String NOT_READY = "ServerNotReadyException";

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
            Throwable t) {
        if (logger == null || !logger.getName().startsWith(RATIS_LOGGERS)) {
            return FilterReply.NEUTRAL;
        }
        Throwable thrown = t;
        boolean trailingThrowable = params != null && params.length > 0
                && params[params.length - 1] instanceof Throwable;
        if (thrown == null && trailingThrowable) {
            thrown = (Throwable) params[params.length - 1];
        }
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (cause.getClass().getSimpleName().equals(NOT_READY)) {
                return FilterReply.DENY;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
