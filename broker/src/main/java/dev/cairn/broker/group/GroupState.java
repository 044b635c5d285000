package dev.cairn.broker.group;

/**
 * The states of a classic consumer group, with the names Kafka shows in DescribeGroups and the tools.
 *
 * <pre>
 *   Empty ──join──▶ PreparingRebalance ──all joined / rebalance timeout──▶ CompletingRebalance
 *     ▲                 ▲      │                                              │ leader's SyncGroup
 *     │                 │      └──no member left──▶ Empty                     ▼
 *     │                 └──────── join, leave, session expiry ─────────── Stable
 *   Dead: the group was unloaded (its coordinator moved or it was evicted); nothing leaves Dead.
 * </pre>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String displayName;

    GroupState(String displayName) {
        this.displayName = displayName;
    }

    /** Kafka's name for the state, as DescribeGroups reports it. */
    public String displayName() {
        return displayName;
    }
}
