package dev.cairn.maelstrom.harness;

/**
 * One {@code [offset, msg]} pair of a {@code poll_ok} reply. Messages are the unique per-key integers the
 * workload sends, as in Maelstrom's kafka workload (Elle list-append values).
 */
public record OffsetMsg(long offset, long msg) {
}
