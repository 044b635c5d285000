package dev.cairn.broker.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * A topic's config overrides as one space-free token, for the local partition indexes (read before metadata
 * replays): base64 of sorted {@code name=value} lines, or {@code -} when there are none.
 */
public final class TopicConfigsText {
    private TopicConfigsText() {
    }

    public static String encode(Map<String, String> configs) {
        if (configs.isEmpty()) {
            return "-";
        }
        StringBuilder lines = new StringBuilder();
        new TreeMap<>(configs).forEach((name, value) -> lines.append(name).append('=').append(value).append('\n'));
        return Base64.getEncoder().encodeToString(lines.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The configs {@link #encode} wrote; throws IllegalArgumentException on text that is not base64. */
    public static Map<String, String> decode(String encoded) {
        Map<String, String> configs = new TreeMap<>();
        if (encoded.equals("-")) {
            return configs;
        }
        String lines = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        for (String line : lines.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                configs.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return configs;
    }
}
