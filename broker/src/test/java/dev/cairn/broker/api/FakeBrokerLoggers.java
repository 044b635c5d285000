package dev.cairn.broker.api;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Log levels in a map: loggers set here, each level inherited from "root" unless set. */
final class FakeBrokerLoggers implements BrokerLoggers {
    private final Map<String, String> own = new TreeMap<>(Map.of(ROOT, "INFO"));
    private final java.util.Set<String> known = new java.util.TreeSet<>(java.util.Set.of(ROOT));

    FakeBrokerLoggers with(String logger) {
        known.add(logger);
        return this;
    }

    @Override
    public synchronized Map<String, String> levels() {
        Map<String, String> levels = new TreeMap<>();
        known.forEach(logger -> levels.put(logger, own.getOrDefault(logger, own.get(ROOT))));
        return levels;
    }

    @Override
    public synchronized boolean exists(String logger) {
        return known.contains(logger);
    }

    @Override
    public synchronized Optional<String> set(String logger, String level) {
        own.put(logger, level);
        return Optional.empty();
    }

    @Override
    public synchronized Optional<String> unset(String logger) {
        own.remove(logger);
        return Optional.empty();
    }
}
