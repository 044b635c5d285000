package dev.cairn.broker.partition;

import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.AppendDuplicate;
import dev.cairn.broker.partition.Command.AppendRefused;
import dev.cairn.broker.partition.Command.TxnMarker;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;

/**
 * The leader's placements of appended batches as Raft log data (the write-once path, docs/write-path.md), in
 * {@link CommandCodec}'s framing (format version, type, body):
 *
 * <pre>
 *   AppendAt        (8): baseOffset i64, appendTimeMs i64, sizeBytes i32, crc i32, lastOffsetDelta i32,
 *                        producerId i64, producerEpoch i16, firstSequence i32, lastSequence i32, maxTimestamp i64
 *   AppendDuplicate (9): baseOffset i64, lastOffset i64
 *   AppendRefused  (10): errorCode i16, reason str
 *   AppendAt       (12): as type 8, then txnRole u8 (1 = transaction data, 2 = commit marker, 3 = abort marker);
 *                        type 8 is an AppendAt outside any transaction
 *   TxnMarker      (13): producerId i64, producerEpoch i16, commit u8, coordinatorEpoch i32, appendTimeMs i64
 *   AppendChecked  (22): appendTimeMs i64, verifiedInTerm i64, batch (the rest of the entry, verbatim)
 * </pre>
 *
 * An AppendAt entry carries its batch as the Raft entry's state machine data, which is never in these bytes.
 */
public final class PlacementCodec {
    static final byte APPEND_AT = 8;
    static final byte APPEND_DUPLICATE = 9;
    static final byte APPEND_REFUSED = 10;
    static final byte APPEND_AT_TXN = 12;
    static final byte TXN_MARKER = 13;
    static final byte APPEND_CHECKED = 22;
    static final int TXN_MARKER_BYTES = 2 + 8 + 2 + 1 + 4 + 8;
    /** Bytes before the batch in an AppendChecked command. */
    static final int APPEND_CHECKED_HEADER_BYTES = 2 + 8 + 8;
    static final int APPEND_AT_BYTES = 2 + 8 + 8 + 4 + 4 + 4 + 8 + 2 + 4 + 4 + 8;

    static final byte QUERY_COMMITTED_BATCHES = 3;
    static final byte COMMITTED_BATCHES = 11;
    static final int BATCH_QUERY_BYTES = 2 + 8 + 4;

    private PlacementCodec() {
    }

    /** A read-only query for the leader's committed batches from {@code fromOffset}, at most {@code maxBytes}. */
    public static ByteBuffer encodeBatchQuery(long fromOffset, int maxBytes) {
        return ByteBuffer.allocate(BATCH_QUERY_BYTES).put(CommandCodec.FORMAT_VERSION).put(QUERY_COMMITTED_BATCHES)
                .putLong(fromOffset).putInt(maxBytes).flip();
    }

    /** Whether {@code query} is {@link #encodeBatchQuery}'s. */
    public static boolean isBatchQuery(ByteBuffer query) {
        return query.remaining() == BATCH_QUERY_BYTES && query.get(query.position()) == CommandCodec.FORMAT_VERSION
                && query.get(query.position() + 1) == QUERY_COMMITTED_BATCHES;
    }

    public static long batchQueryFromOffset(ByteBuffer query) {
        return query.getLong(query.position() + 2);
    }

    public static int batchQueryMaxBytes(ByteBuffer query) {
        return query.getInt(query.position() + 10);
    }

    /** The answer to a batch query: the batches' bytes, framed. */
    public static ByteBuffer encodeBatches(ByteBuffer batches) {
        return ByteBuffer.allocate(2 + batches.remaining()).put(CommandCodec.FORMAT_VERSION).put(COMMITTED_BATCHES)
                .put(batches.duplicate()).flip();
    }

    /** The batches of a batch query's answer, or a CommandFormatException naming the refusal it holds instead. */
    public static ByteBuffer decodeBatches(ByteBuffer answer) {
        if (answer.remaining() >= 2 && answer.get(answer.position()) == CommandCodec.FORMAT_VERSION
                && answer.get(answer.position() + 1) == COMMITTED_BATCHES) {
            return answer.duplicate().position(answer.position() + 2).slice();
        }
        throw new CommandFormatException("no batches in the answer: " + CommandCodec.decodeResult(answer));
    }

    /** An AppendChecked as its header and its batch (not copied), to be sent as one entry. */
    static ByteBuffer[] appendCheckedParts(Command.AppendChecked checked) {
        ByteBuffer header = ByteBuffer.allocate(APPEND_CHECKED_HEADER_BYTES).put(CommandCodec.FORMAT_VERSION)
                .put(APPEND_CHECKED).putLong(checked.append().appendTimeMs()).putLong(checked.verifiedInTerm()).flip();
        return new ByteBuffer[] {header, checked.append().batch().duplicate()};
    }

    /** The AppendChecked whose parts {@link #appendCheckedParts} made (the batch not copied), or null if not one. */
    static Command decodeCheckedParts(ByteBuffer header, ByteBuffer batch) {
        int at = header.position();
        if (header.remaining() != APPEND_CHECKED_HEADER_BYTES || header.get(at) != CommandCodec.FORMAT_VERSION
                || header.get(at + 1) != APPEND_CHECKED) {
            return null;
        }
        return new Command.AppendChecked(new Command.Append(batch.slice(), header.getLong(at + 2)),
                header.getLong(at + 2 + 8));
    }

    /**
     * Encodes a placement, a transaction marker or a transaction coordinator command; any other command is an
     * IllegalArgumentException (use {@link CommandCodec}).
     */
    public static ByteBuffer encode(Command placement) {
        if (placement instanceof AppendAt a) {
            boolean plain = a.txn() == TxnRole.NONE;
            ByteBuffer out = ByteBuffer.allocate(APPEND_AT_BYTES + (plain ? 0 : 1)).put(CommandCodec.FORMAT_VERSION)
                    .put(plain ? APPEND_AT : APPEND_AT_TXN)
                    .putLong(a.baseOffset()).putLong(a.appendTimeMs()).putInt(a.sizeBytes()).putInt(a.crc())
                    .putInt(a.lastOffsetDelta()).putLong(a.producerId()).putShort(a.producerEpoch())
                    .putInt(a.firstSequence()).putInt(a.lastSequence()).putLong(a.maxTimestamp());
            if (!plain) {
                out.put((byte) a.txn().ordinal());
            }
            return out.flip();
        }
        if (placement instanceof TxnMarker m) {
            return ByteBuffer.allocate(TXN_MARKER_BYTES).put(CommandCodec.FORMAT_VERSION).put(TXN_MARKER)
                    .putLong(m.producerId()).putShort(m.producerEpoch()).put((byte) (m.commit() ? 1 : 0))
                    .putInt(m.coordinatorEpoch()).putLong(m.appendTimeMs()).flip();
        }
        if (placement instanceof Command.AppendChecked checked) {
            ByteBuffer[] parts = appendCheckedParts(checked);
            return ByteBuffer.allocate(parts[0].remaining() + parts[1].remaining()).put(parts[0]).put(parts[1]).flip();
        }
        if (placement instanceof AppendDuplicate d) {
            return ByteBuffer.allocate(2 + 16).put(CommandCodec.FORMAT_VERSION).put(APPEND_DUPLICATE)
                    .putLong(d.baseOffset()).putLong(d.lastOffset()).flip();
        }
        if (placement instanceof AppendRefused r) {
            byte[] reason = CommandCodec.utf8(r.reason());
            ByteBuffer out = ByteBuffer.allocate(2 + 2 + CommandCodec.stringSize(reason))
                    .put(CommandCodec.FORMAT_VERSION).put(APPEND_REFUSED).putShort(r.error().code());
            CommandCodec.putString(out, reason);
            return out.flip();
        }
        return TxnCommandCodec.encode(placement);
    }

    /** The body of a placement of type {@code type}, after the framing; unknown types are CommandFormatException. */
    static Command decodeBody(byte type, ByteBuffer in) {
        switch (type) {
            case APPEND_AT:
                return new AppendAt(in.getLong(), in.getLong(), in.getInt(), in.getInt(), in.getInt(), in.getLong(),
                        in.getShort(), in.getInt(), in.getInt(), in.getLong());
            case APPEND_AT_TXN:
                return new AppendAt(in.getLong(), in.getLong(), in.getInt(), in.getInt(), in.getInt(), in.getLong(),
                        in.getShort(), in.getInt(), in.getInt(), in.getLong(), txnRole(in.get()));
            case TXN_MARKER:
                return new TxnMarker(in.getLong(), in.getShort(), in.get() != 0, in.getInt(), in.getLong());
            case APPEND_DUPLICATE:
                return new AppendDuplicate(in.getLong(), in.getLong());
            case APPEND_REFUSED:
                return new AppendRefused(ErrorCode.forCode(in.getShort()), CommandCodec.getString(in));
            case APPEND_CHECKED:
                long appendTimeMs = in.getLong();
                long verifiedInTerm = in.getLong();
                return new Command.AppendChecked(new Command.Append(in.slice(), appendTimeMs), verifiedInTerm);
            default:
                return TxnCommandCodec.decodeBody(type, in);
        }
    }

    private static TxnRole txnRole(byte code) {
        if (code <= 0 || code >= TxnRole.values().length) {
            throw new CommandFormatException("unknown transaction role " + code + " of a placement");
        }
        return TxnRole.values()[code];
    }
}
