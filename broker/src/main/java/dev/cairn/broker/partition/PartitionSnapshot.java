package dev.cairn.broker.partition;

import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a partition snapshot records beside its Raft index: where the log started and ended when the snapshot
 * was taken (everything below {@code logEndOffset} was flushed first), the idempotent-producer state, every
 * group's committed offset for the partition, and the segment files that hold the log with the size of each at
 * that moment. A replica that installs the snapshot rebuilds its log from those segments, so it ends up with
 * the leader's bytes, and replaces its committed offsets with these.
 *
 * <p>{@code topicConfigs} are the topic configs the log followed at that index (the last {@link Command.Reconfigure}
 * applied), or null in snapshots from before version 4, taken when no partition had been reconfigured: the log then
 * follows the configs its topic was created with.
 *
 * <p>{@code leaderEpochs} maps each leader epoch that appended batches to its first offset ({@link LeaderEpochs}), or
 * is null in snapshots from before version 5: the partition then rebuilds it from its log's batch headers.
 *
 * <p>{@code transactionState} is the {@link TransactionIndex} as {@link TransactionIndex#encode} wrote it, and
 * {@code coordinatorState} the {@link CoordinatorTransactions} of a {@code __transaction_state} partition; both are
 * null in snapshots from before version 6, taken before any partition held a transaction: both are then empty.
 *
 * <pre>
 * version 6: as version 5, then transactionStateBytes i32 (-1: none recorded), transactionState,
 *            coordinatorStateBytes i32 (-1: none recorded), coordinatorState
 * version 5: as version 4, then epochCount i32 (-1: none recorded), epochCount x (epoch i32, startOffset i64)
 * version 4: as version 3, then configCount i32, configCount x (name string, value string), names in order
 * version 3: formatVersion i32, logStartOffset i64, logEndOffset i64, producerStateBytes i32, producerState,
 *            offsetCount i32, offsetCount x (group string, offset i64, commitTimeMs i64, leaderEpoch i32,
 *            metadata nullable string), segmentCount i32, segmentCount x (baseOffset i64, sizeBytes i64)
 * version 2: as version 3 without the committed offsets' leaderEpoch (read as -1)
 *            string: length i32 then UTF-8 bytes; a nullable string has length -1 for null
 * version 1: formatVersion i32, logStartOffset i64, logEndOffset i64, producerStateBytes i32, producerState
 *            (read for snapshots written before version 2; they carry no offsets and no segments)
 * </pre>
 */
public record PartitionSnapshot(long logStartOffset, long logEndOffset, byte[] producerState,
        Map<String, CommittedOffset> committedOffsets, List<SegmentExtent> segments, Map<String, String> topicConfigs,
        Map<Integer, Long> leaderEpochs, byte[] transactionState, byte[] coordinatorState) {
    private static final int FORMAT_VERSION = 6;
    private static final int FORMAT_VERSION_WITHOUT_TRANSACTIONS = 5;
    private static final int FORMAT_VERSION_WITHOUT_EPOCH_STARTS = 4;
    private static final int FORMAT_VERSION_WITHOUT_CONFIGS = 3;
    private static final int FORMAT_VERSION_WITHOUT_EPOCHS = 2;
    private static final int FORMAT_VERSION_WITHOUT_SEGMENTS = 1;
    /** Longest group id or metadata string accepted when decoding (Kafka's strings are i16-length). */
    private static final int STRING_BYTES_MAX = Short.MAX_VALUE;

    public PartitionSnapshot {
        committedOffsets = new TreeMap<>(committedOffsets);
        segments = List.copyOf(segments);
        topicConfigs = topicConfigs == null ? null : new TreeMap<>(topicConfigs);
        leaderEpochs = leaderEpochs == null ? null : new TreeMap<>(leaderEpochs);
    }

    /** A snapshot without recorded transactions (as written before version 6). */
    public PartitionSnapshot(long logStartOffset, long logEndOffset, byte[] producerState,
            Map<String, CommittedOffset> committedOffsets, List<SegmentExtent> segments,
            Map<String, String> topicConfigs, Map<Integer, Long> leaderEpochs) {
        this(logStartOffset, logEndOffset, producerState, committedOffsets, segments, topicConfigs, leaderEpochs,
                null, null);
    }

    /** A snapshot without recorded topic configs (as written before version 4). */
    public PartitionSnapshot(long logStartOffset, long logEndOffset, byte[] producerState,
            Map<String, CommittedOffset> committedOffsets, List<SegmentExtent> segments) {
        this(logStartOffset, logEndOffset, producerState, committedOffsets, segments, null, null);
    }

    public byte[] encode() {
        List<byte[]> groups = new ArrayList<>();
        List<byte[]> metadata = new ArrayList<>();
        Map<String, String> configs = topicConfigs == null ? Map.of() : topicConfigs;
        List<byte[]> configStrings = new ArrayList<>();
        Map<Integer, Long> epochs = leaderEpochs == null ? Map.of() : leaderEpochs;
        int size = 4 + 8 + 8 + 4 + producerState.length + 4 + 4 + segments.size() * 16 + 4 + 4 + epochs.size() * 12
                + 4 + (transactionState == null ? 0 : transactionState.length)
                + 4 + (coordinatorState == null ? 0 : coordinatorState.length);
        for (Map.Entry<String, String> config : new TreeMap<>(configs).entrySet()) {
            configStrings.add(config.getKey().getBytes(StandardCharsets.UTF_8));
            configStrings.add(config.getValue().getBytes(StandardCharsets.UTF_8));
            size += 8 + configStrings.get(configStrings.size() - 2).length
                    + configStrings.get(configStrings.size() - 1).length;
        }
        for (Map.Entry<String, CommittedOffset> entry : committedOffsets.entrySet()) {
            byte[] group = entry.getKey().getBytes(StandardCharsets.UTF_8);
            String text = entry.getValue().metadata();
            byte[] meta = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
            groups.add(group);
            metadata.add(meta);
            size += 4 + group.length + 8 + 8 + 4 + 4 + (meta == null ? 0 : meta.length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(FORMAT_VERSION).putLong(logStartOffset).putLong(logEndOffset).putInt(producerState.length)
                .put(producerState);
        out.putInt(committedOffsets.size());
        int i = 0;
        for (CommittedOffset offset : committedOffsets.values()) {
            out.putInt(groups.get(i).length).put(groups.get(i));
            out.putLong(offset.offset()).putLong(offset.commitTimeMs()).putInt(offset.leaderEpoch());
            byte[] meta = metadata.get(i);
            out.putInt(meta == null ? -1 : meta.length);
            if (meta != null) {
                out.put(meta);
            }
            i++;
        }
        out.putInt(segments.size());
        for (SegmentExtent segment : segments) {
            out.putLong(segment.baseOffset()).putLong(segment.sizeBytes());
        }
        out.putInt(topicConfigs == null ? -1 : configs.size());
        for (byte[] string : configStrings) {
            out.putInt(string.length).put(string);
        }
        out.putInt(leaderEpochs == null ? -1 : epochs.size());
        new TreeMap<>(epochs).forEach((epoch, start) -> out.putInt(epoch).putLong(start));
        for (byte[] state : new byte[][] {transactionState, coordinatorState}) {
            out.putInt(state == null ? -1 : state.length);
            if (state != null) {
                out.put(state);
            }
        }
        return out.array();
    }

    public static PartitionSnapshot decode(ByteBuffer in) {
        try {
            int version = in.getInt();
            if (version < FORMAT_VERSION_WITHOUT_SEGMENTS || version > FORMAT_VERSION) {
                throw new CommandFormatException("partition snapshot format " + version + " is not "
                        + FORMAT_VERSION_WITHOUT_SEGMENTS + " to " + FORMAT_VERSION);
            }
            long logStartOffset = in.getLong();
            long logEndOffset = in.getLong();
            byte[] producerState = bytes(in, in.getInt(), "producer state");
            if (version == FORMAT_VERSION_WITHOUT_SEGMENTS) {
                return new PartitionSnapshot(logStartOffset, logEndOffset, producerState, Map.of(), List.of());
            }
            int offsetCount = count(in, in.getInt(), 4 + 8 + 8 + 4, "committed offsets");
            Map<String, CommittedOffset> offsets = new LinkedHashMap<>();
            for (int i = 0; i < offsetCount; i++) {
                String group = string(in, "group id");
                long offset = in.getLong();
                long commitTimeMs = in.getLong();
                int leaderEpoch = version == FORMAT_VERSION_WITHOUT_EPOCHS ? CommittedOffset.NO_LEADER_EPOCH
                        : in.getInt();
                String metadata = nullableString(in, "offset metadata");
                offsets.put(group, new CommittedOffset(offset, metadata, commitTimeMs, leaderEpoch));
            }
            int segmentCount = count(in, in.getInt(), 16, "segments");
            List<SegmentExtent> segments = new ArrayList<>(segmentCount);
            for (int i = 0; i < segmentCount; i++) {
                segments.add(new SegmentExtent(in.getLong(), in.getLong()));
            }
            Map<String, String> topicConfigs = version <= FORMAT_VERSION_WITHOUT_CONFIGS ? null : topicConfigs(in);
            Map<Integer, Long> leaderEpochs = version <= FORMAT_VERSION_WITHOUT_EPOCH_STARTS ? null : leaderEpochs(in);
            boolean transactions = version > FORMAT_VERSION_WITHOUT_TRANSACTIONS;
            byte[] transactionState = transactions ? nullableBytes(in, "transaction state") : null;
            byte[] coordinatorState = transactions ? nullableBytes(in, "coordinator state") : null;
            return new PartitionSnapshot(logStartOffset, logEndOffset, producerState, offsets, segments, topicConfigs,
                    leaderEpochs, transactionState, coordinatorState);
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new CommandFormatException("partition snapshot is malformed: " + e);
        }
    }

    /** Version 5's epoch starts: -1 for none recorded (null). */
    private static Map<Integer, Long> leaderEpochs(ByteBuffer in) {
        int count = in.getInt();
        if (count == -1) {
            return null;
        }
        count(in, count, 12, "leader epochs");
        Map<Integer, Long> epochs = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            epochs.put(in.getInt(), in.getLong());
        }
        return epochs;
    }

    /** Version 4's configs: -1 for none recorded (null). */
    private static Map<String, String> topicConfigs(ByteBuffer in) {
        int count = in.getInt();
        if (count == -1) {
            return null;
        }
        count(in, count, 8, "topic configs");
        Map<String, String> configs = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            configs.put(string(in, "topic config name"), string(in, "topic config value"));
        }
        return configs;
    }

    private static int count(ByteBuffer in, int count, int minBytesEach, String what) {
        if (count < 0 || (long) count * minBytesEach > in.remaining()) {
            throw new CommandFormatException("partition snapshot claims " + count + " " + what + " in "
                    + in.remaining() + " bytes");
        }
        return count;
    }

    private static byte[] nullableBytes(ByteBuffer in, String what) {
        int length = in.getInt();
        return length == -1 ? null : bytes(in, length, what);
    }

    private static byte[] bytes(ByteBuffer in, int length, String what) {
        if (length < 0 || length > in.remaining()) {
            throw new CommandFormatException("partition snapshot " + what + " of " + length + " bytes, "
                    + in.remaining() + " available");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    private static String nullableString(ByteBuffer in, String what) {
        int length = in.getInt();
        return length == -1 ? null : string(in, length, what);
    }

    private static String string(ByteBuffer in, String what) {
        return string(in, in.getInt(), what);
    }

    private static String string(ByteBuffer in, int length, String what) {
        if (length > STRING_BYTES_MAX) {
            throw new CommandFormatException("partition snapshot " + what + " of " + length + " bytes exceeds "
                    + STRING_BYTES_MAX);
        }
        return new String(bytes(in, length, what), StandardCharsets.UTF_8);
    }
}
