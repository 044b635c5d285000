package dev.cairn.broker.cluster;

/**
 * One applied metadata change: the image before and after, and the command that caused it (null when a
 * snapshot replaced the state). Listeners act on explicit causes: a partition is removed only because a
 * {@link MetadataCommand.DeleteTopic} was applied, never because a topic is absent from an image, since an
 * image seen during replay after a restart is an old one.
 */
public record MetadataChange(MetadataImage previous, MetadataImage current, MetadataCommand cause) {
}
