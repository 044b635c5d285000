package dev.cairn.broker.group;

/**
 * One assignment protocol a member supports (for consumers an assignor such as {@code range}) and the member's
 * opaque metadata for it (its subscription). The coordinator never parses the metadata; it only relays it.
 */
public record Protocol(String name, byte[] metadata) {
}
