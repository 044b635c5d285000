package dev.cairn.broker.log;

/**
 * One segment's file as it stood at a moment: its base offset (which names the file) and how many bytes of it
 * held whole batches. A snapshot records these so that it can ship exactly that prefix of a file that the log
 * keeps appending to.
 */
public record SegmentExtent(long baseOffset, long sizeBytes) {
    public SegmentExtent {
        if (baseOffset < 0 || sizeBytes < 0) {
            throw new IllegalArgumentException("segment extent " + baseOffset + "/" + sizeBytes + " is negative");
        }
    }
}
