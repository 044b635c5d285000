package dev.cairn.broker.partition;

import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * The offsets transactions hold pending on a partition, in its snapshot: {@code producerCount i32}, then per producer
 * {@code producerId i64, epoch i16, groupCount i32, groupCount x (group str, offset i64, leaderEpoch i32, metadata str,
 * commitTimeMs i64)}; {@code str} as {@link CommandCodec} writes strings.
 */
final class PendingOffsetsCodec {
    private PendingOffsetsCodec() {
    }

    static byte[] encode(Map<Long, TransactionIndex.PendingOffsets> pending) {
        int size = 4;
        for (TransactionIndex.PendingOffsets producer : pending.values()) {
            size += 8 + 2 + 4;
            for (Map.Entry<String, CommittedOffset> entry : producer.byGroup().entrySet()) {
                size += CommandCodec.stringSize(CommandCodec.utf8(entry.getKey())) + 8 + 4
                        + CommandCodec.stringSize(CommandCodec.utf8(entry.getValue().metadata())) + 8;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(pending.size());
        pending.forEach((producer, offsets) -> {
            out.putLong(producer).putShort(offsets.epoch()).putInt(offsets.byGroup().size());
            offsets.byGroup().forEach((group, offset) -> {
                CommandCodec.putString(out, CommandCodec.utf8(group));
                out.putLong(offset.offset()).putInt(offset.leaderEpoch());
                CommandCodec.putString(out, CommandCodec.utf8(offset.metadata()));
                out.putLong(offset.commitTimeMs());
            });
        });
        return out.array();
    }

    static Map<Long, TransactionIndex.PendingOffsets> decode(ByteBuffer in) {
        try {
            Map<Long, TransactionIndex.PendingOffsets> pending = new TreeMap<>();
            int producers = count(in.getInt(), ProducerStateTable.PRODUCERS_MAX, "producers");
            for (int i = 0; i < producers; i++) {
                long producer = in.getLong();
                short epoch = in.getShort();
                int groups = count(in.getInt(), TransactionIndex.PENDING_GROUPS_PER_PRODUCER_MAX, "groups");
                Map<String, CommittedOffset> offsets = new TreeMap<>();
                for (int j = 0; j < groups; j++) {
                    String group = CommandCodec.getString(in);
                    long offset = in.getLong();
                    int leaderEpoch = in.getInt();
                    String metadata = CommandCodec.getString(in);
                    offsets.put(group, new CommittedOffset(offset, metadata, in.getLong(), leaderEpoch));
                }
                pending.put(producer, new TransactionIndex.PendingOffsets(epoch, offsets));
            }
            return pending;
        } catch (BufferUnderflowException e) {
            throw new CommandFormatException("pending transactional offsets truncated");
        }
    }

    private static int count(int count, int max, String what) {
        if (count < 0 || count > max) {
            throw new CommandFormatException("pending transactional offsets of " + count + " " + what);
        }
        return count;
    }
}
