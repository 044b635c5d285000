/**
 * The segmented log of one partition: {@link dev.cairn.broker.log.Log} over
 * {@link dev.cairn.broker.log.Segment}s with sparse {@link dev.cairn.broker.log.OffsetIndex} and
 * {@link dev.cairn.broker.log.TimeIndex} files, all file access through {@code broker.io.FileIo}.
 *
 * <h2>Flush policy: what each setting guarantees</h2>
 *
 * <p>Cairn's first line of durability is Raft: a batch is acknowledged once a majority has it in its Raft
 * log, and a replica that lost its tail replays it from the Raft log or a snapshot. The log's own fsync
 * policy decides what a single machine keeps across a power failure. (A process crash loses nothing: the
 * operating system still holds every written byte.) The settings mirror Kafka's
 * {@code log.flush.interval.messages} and {@code log.flush.interval.ms}.
 *
 * <table>
 * <caption>Flush settings</caption>
 * <tr><th>Setting</th><th>Guarantee after a power failure</th></tr>
 * <tr><td>{@code flush.messages = N} ({@link dev.cairn.broker.log.LogConfig#flushIntervalMessages()})</td>
 *   <td>The append that brings the unflushed offsets to N or more fsyncs the active segment and the
 *   recovery point before it returns. At most the offsets of the last N - 1 unflushed offsets (plus the
 *   rest of the batch that crossed) can be lost; with N = 1 every append is on disk when it returns.</td></tr>
 * <tr><td>{@code flush.ms = T} ({@link dev.cairn.broker.log.LogConfig#flushIntervalMs()})</td>
 *   <td>{@link dev.cairn.broker.log.Log#maybeFlush(long)} (called from {@code tick(nowMs)}) fsyncs once data
 *   has been seen unflushed for T ms. Data is on disk at most T ms plus one tick period after it was
 *   appended. Nothing happens without ticks: the log reads no clock.</td></tr>
 * <tr><td>Both at their default {@code Long.MAX_VALUE}</td>
 *   <td>No fsync by policy, as in Kafka. The log still fsyncs at fixed points: when a segment is rolled
 *   (the finished segment and its index files), after recovery on open, on truncation, and on clean
 *   close. A power failure can lose the unflushed tail of the active segment, never an older segment.</td></tr>
 * <tr><td>{@link dev.cairn.broker.log.Log#flush()}</td>
 *   <td>An explicit fsync, for example before a Raft snapshot is taken: {@code flushedOffset()} equals the
 *   log end offset afterwards.</td></tr>
 * </table>
 *
 * <p>Whatever the setting, {@link dev.cairn.broker.log.Log#flushedOffset()} is the promise: offsets below it
 * survive a crash. Recovery treats damage below the recovery point, or in any inactive segment, as
 * corruption ({@link dev.cairn.broker.log.LogCorruptionException}: the partition stops, nothing is cut
 * away), and anything invalid above it as a torn tail (truncated, indexes rebuilt).
 *
 * <h2>Threads</h2>
 *
 * <p>One writer per log (the partition's Raft apply thread), checked on every mutating call; any number of
 * readers bounded by the published log end offset. See {@link dev.cairn.broker.log.Log}.
 */
package dev.cairn.broker.log;
