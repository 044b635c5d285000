package dev.cairn.broker.cluster;

import dev.cairn.broker.config.Limits;
import java.util.Collection;
import java.util.Optional;

/**
 * Kafka's topic-name rules: 1 to 249 characters from {@code [a-zA-Z0-9._-]}, not "." or "..", and not
 * colliding with an existing topic once '.' and '_' are treated alike (their metric names would clash).
 */
public final class TopicNames {
    private TopicNames() {
    }

    /** Why {@code name} is not a legal topic name, or empty when it is. */
    public static Optional<String> invalidReason(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("topic name is empty");
        }
        if (name.equals(".") || name.equals("..")) {
            return Optional.of("topic name cannot be \".\" or \"..\"");
        }
        if (name.length() > Limits.TOPIC_NAME_CHARS_MAX) {
            return Optional.of("topic name is " + name.length() + " characters, more than "
                    + Limits.TOPIC_NAME_CHARS_MAX);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                return Optional.of("topic name " + name + " contains '" + c + "'; legal characters are "
                        + "ASCII letters, digits, '.', '_' and '-'");
            }
        }
        return Optional.empty();
    }

    /** The existing topic that {@code name} would collide with, if any. */
    public static Optional<String> collision(String name, Collection<String> existing) {
        String normalized = name.replace('.', '_');
        for (String other : existing) {
            if (!other.equals(name) && other.replace('.', '_').equals(normalized)) {
                return Optional.of(other);
            }
        }
        return Optional.empty();
    }
}
