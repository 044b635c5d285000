package dev.cairn.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.LoggerFactory;

/**
 * Reads and sets Logback's logger levels at run time (for Kafka's BROKER_LOGGER configs). Level names are Kafka's
 * (log4j's): OFF, FATAL (Logback's ERROR), ERROR, WARN, INFO, DEBUG, TRACE, ALL. When SLF4J is not bound to Logback
 * (a test classpath), there are no loggers to show and every change is refused with the reason.
 */
public final class LogbackLevels {
    private static final Set<String> LEVELS = Set.of("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL");
    private static final String ROOT = "root";

    private LogbackLevels() {
    }

    /** Every logger created so far with its effective level; empty without Logback. */
    public static Map<String, String> levels() {
        Map<String, String> levels = new TreeMap<>();
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            for (Logger logger : context.getLoggerList()) {
                String name = Logger.ROOT_LOGGER_NAME.equals(logger.getName()) ? ROOT : logger.getName();
                levels.put(name, logger.getEffectiveLevel().toString());
            }
        }
        return levels;
    }

    /** Whether Logback has a logger of that name. */
    public static boolean exists(String name) {
        return ROOT.equals(name) || LoggerFactory.getILoggerFactory() instanceof LoggerContext context
                && context.exists(name) != null;
    }

    /** Sets {@code name}'s level; the reason when it cannot. */
    public static Optional<String> set(String name, String level) {
        String upper = level == null ? "" : level.trim().toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(upper)) {
            return Optional.of("Cannot set the log level of " + name + " to " + level + " as it is not a supported log "
                    + "level. Valid log levels are " + String.join(", ", new java.util.TreeSet<>(LEVELS)));
        }
        Optional<Logger> logger = logger(name);
        if (logger.isEmpty()) {
            return Optional.of("log levels cannot change: the broker does not log through Logback");
        }
        logger.get().setLevel(Level.toLevel("FATAL".equals(upper) ? "ERROR" : upper));
        return Optional.empty();
    }

    /** Makes {@code name} inherit its level again; the root logger always has its own. */
    public static Optional<String> unset(String name) {
        if (ROOT.equals(name)) {
            return Optional.of("Removing the log level of the root logger is not allowed");
        }
        Optional<Logger> logger = logger(name);
        if (logger.isEmpty()) {
            return Optional.of("log levels cannot change: the broker does not log through Logback");
        }
        logger.get().setLevel(null);
        return Optional.empty();
    }

    private static Optional<Logger> logger(String name) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return Optional.empty();
        }
        return Optional.of(context.getLogger(ROOT.equals(name) ? Logger.ROOT_LOGGER_NAME : name));
    }
}
