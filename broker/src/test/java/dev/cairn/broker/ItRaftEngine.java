package dev.cairn.broker;

import java.util.HashMap;
import java.util.Map;

/**
 * The Raft engine integration tests run their brokers on: the default (cairn) unless {@code -Dcairn.it.raft.engine}
 * names one; the second failsafe execution of broker/pom.xml sets {@code ratis}, which goes into every broker a
 * fixture starts unless the test sets raft.engine itself.
 */
final class ItRaftEngine {
    static final String PROPERTY = "cairn.it.raft.engine";

    private ItRaftEngine() {
    }

    /** Whether this run puts the partitions on Ratis (the default engine is Cairn's own). */
    static boolean partitionsOnRatis() {
        return "ratis".equals(System.getProperty(PROPERTY, "").trim());
    }

    /** {@code settings} with the engine of this run added. */
    static Map<String, String> withEngine(Map<String, String> settings) {
        String engine = System.getProperty(PROPERTY, "").trim();
        if (engine.isEmpty() || settings.containsKey("raft.engine")) {
            return settings;
        }
        Map<String, String> with = new HashMap<>(settings);
        with.put("raft.engine", engine);
        return with;
    }
}
