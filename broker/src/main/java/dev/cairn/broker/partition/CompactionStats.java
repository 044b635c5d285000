package dev.cairn.broker.partition;

/** Cumulative figures of the compaction passes one replica ran: passes, bytes read and written, records removed. */
public record CompactionStats(long passes, long bytesRead, long bytesWritten, long recordsRemoved) {
}
