package dev.cairn.broker.group;

import dev.cairn.broker.config.Limits;

/**
 * The coordinator's tunables, taken from the broker configuration's {@code group.*} keys.
 *
 * @param minSessionTimeoutMs {@code group.min.session.timeout.ms}
 * @param maxSessionTimeoutMs {@code group.max.session.timeout.ms}
 * @param initialRebalanceDelayMs {@code group.initial.rebalance.delay.ms}
 * @param maxSize {@code group.max.size}
 */
public record GroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs,
        int maxSize) {

    public GroupConfig {
        if (minSessionTimeoutMs > maxSessionTimeoutMs) {
            throw new IllegalArgumentException("group.min.session.timeout.ms=" + minSessionTimeoutMs
                    + " exceeds group.max.session.timeout.ms=" + maxSessionTimeoutMs);
        }
        if (maxSize < 1 || maxSize > Limits.GROUP_MEMBERS_MAX) {
            throw new IllegalArgumentException("group.max.size=" + maxSize + " is outside [1, "
                    + Limits.GROUP_MEMBERS_MAX + "]");
        }
    }
}
