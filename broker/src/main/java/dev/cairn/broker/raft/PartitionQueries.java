package dev.cairn.broker.raft;

import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.OffsetOutOfRangeException;
import dev.cairn.broker.replica.GapFiller;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacementCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The read-only Raft queries a partition's leader answers from its applied state: a group's committed offset, the
 * groups with committed offsets, and committed batches for a replica filling a gap ({@link GapFiller}).
 */
final class PartitionQueries {
    private PartitionQueries() {
    }

    /** The answer to {@code request} from {@code partition}; refusals are encoded results, never thrown. */
    static Message answer(Partition partition, Message request) {
        Result result;
        ByteBuffer query = request.getContent().asReadOnlyByteBuffer();
        try {
            if (PlacementCodec.isBatchQuery(query)) {
                ByteBuffer batches = partition.read(PlacementCodec.batchQueryFromOffset(query),
                        Math.min(PlacementCodec.batchQueryMaxBytes(query), GapFiller.BYTES_MAX)).readBytes();
                return Message.valueOf(UnsafeByteOperations.unsafeWrap(PlacementCodec.encodeBatches(batches)));
            }
            OffsetQueries.Query decoded = OffsetQueries.decode(query);
            result = decoded.groupsListing()
                    ? new Result.GroupsListed(new ArrayList<>(partition.committedOffsets().keySet()))
                    : OffsetQueries.committedOffset(partition, decoded.groupId(), decoded.requireStable());
        } catch (CommandFormatException e) {
            result = new Result.Rejected(ErrorCode.INVALID_REQUEST, e.getMessage());
        } catch (StorageException | IOException e) {
            result = new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, e.getMessage());
        } catch (OffsetOutOfRangeException e) {
            result = new Result.Rejected(ErrorCode.OFFSET_OUT_OF_RANGE, e.getMessage());
        }
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(result)));
    }
}
