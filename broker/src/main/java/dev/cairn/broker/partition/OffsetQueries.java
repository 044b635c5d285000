package dev.cairn.broker.partition;

import dev.cairn.protocol.ErrorCode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The read-only queries of a partition's committed offsets (answered by its leader from applied state, never
 * replicated), their bytes, and their answers.
 *
 * <pre>
 * query = formatVersion u8 (1), type u8, body
 *   committed offset (1): groupId str, requireStable u8 (absent: 1, as brokers before it always meant)
 *   committed groups (2): (empty)
 *   (3 is PlacementCodec's batch query)
 * </pre>
 *
 * A broker before {@code requireStable} ignores the byte and answers as if it were 1; a query without it is read as
 * 1. So either way a mixed cluster answers at worst as before.
 */
public final class OffsetQueries {
    private static final byte QUERY_COMMITTED_OFFSET = 1;
    private static final byte QUERY_COMMITTED_GROUPS = 2;

    /** A decoded query: a group's committed offset, or (group null) the groups with a committed offset. */
    public record Query(String groupId, boolean requireStable) {
        public boolean groupsListing() {
            return groupId == null;
        }
    }

    private OffsetQueries() {
    }

    /**
     * A group's committed offset as OffsetFetch reads it: {@link Result.OffsetFetched} (offset -1 when none). While a
     * producer's open transaction holds an offset of the group for this partition, a query that requires a stable
     * offset (KIP-447's {@code require_stable}) is answered UNSTABLE_OFFSET_COMMIT (retriable: the consumer asks again
     * once the transaction ends, rather than start from an offset about to change); one that does not gets the last
     * committed offset, the pending one ignored, as Kafka answers it.
     */
    public static Result committedOffset(Partition partition, String groupId, boolean requireStable) {
        if (requireStable && partition.hasPendingOffset(groupId)) {
            return new Result.Rejected(ErrorCode.UNSTABLE_OFFSET_COMMIT, "a transaction holds an offset of group "
                    + groupId + " for " + partition + " that is not committed yet");
        }
        return partition.committedOffset(groupId).<Result>map(Result.OffsetFetched::of)
                .orElse(Result.OffsetFetched.NONE);
    }

    /** A query for a group's committed offset. */
    public static ByteBuffer encodeCommittedOffsetQuery(String groupId, boolean requireStable) {
        byte[] group = CommandCodec.utf8(groupId);
        ByteBuffer out = ByteBuffer.allocate(2 + CommandCodec.stringSize(group) + 1);
        out.put(CommandCodec.FORMAT_VERSION).put(QUERY_COMMITTED_OFFSET);
        CommandCodec.putString(out, group);
        return out.put((byte) (requireStable ? 1 : 0)).flip();
    }

    /** A query for every group with a committed offset for the partition (ListGroups). */
    public static ByteBuffer encodeCommittedGroupsQuery() {
        return ByteBuffer.allocate(2).put(CommandCodec.FORMAT_VERSION).put(QUERY_COMMITTED_GROUPS).flip();
    }

    /** The query {@code bytes} hold; malformed bytes: CommandFormatException. */
    public static Query decode(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        try {
            byte version = in.get();
            if (version != CommandCodec.FORMAT_VERSION) {
                throw new CommandFormatException("partition query format version " + version + " is not "
                        + CommandCodec.FORMAT_VERSION);
            }
            byte type = in.get();
            if (type == QUERY_COMMITTED_GROUPS) {
                return new Query(null, false);
            }
            if (type != QUERY_COMMITTED_OFFSET) {
                throw new CommandFormatException("unknown partition query type " + type);
            }
            String groupId = CommandCodec.getString(in);
            if (groupId == null) {
                throw new CommandFormatException("a committed-offset query names no group");
            }
            return new Query(groupId, !in.hasRemaining() || in.get() != 0);
        } catch (BufferUnderflowException e) {
            throw new CommandFormatException("partition query truncated");
        }
    }
}
