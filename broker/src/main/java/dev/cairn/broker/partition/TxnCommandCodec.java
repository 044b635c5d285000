package dev.cairn.broker.partition;

import dev.cairn.broker.partition.Command.TxnAddPartitions;
import dev.cairn.broker.partition.Command.TxnComplete;
import dev.cairn.broker.partition.Command.TxnEnd;
import dev.cairn.broker.partition.Command.TxnInit;
import dev.cairn.protocol.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The transaction coordinator's commands and answers as bytes, in {@link CommandCodec}'s framing (format version,
 * type, body):
 *
 * <pre>
 *   TxnInit          (14): transactionalId str, timeoutMs i32, candidateProducerId i64, expectedProducerId i64,
 *                          expectedEpoch i16, nowMs i64
 *   TxnAddPartitions (15): transactionalId str, producerId i64, producerEpoch i16, nowMs i64, offsets u8, count i32,
 *                          count x (topic str, partition i32)
 *   TxnEnd           (16): transactionalId str, producerId i64, producerEpoch i16, commit u8, expired u8, nowMs i64
 *   TxnComplete      (17): transactionalId str, producerId i64, producerEpoch i16, nowMs i64
 *   TxnCommitOffset  (18): producerId i64, producerEpoch i16, groupId str, offset i64, leaderEpoch i32,
 *                          metadata str, commitTimeMs i64
 *   TxnEndOffsets    (19): producerId i64, producerEpoch i16, commit u8
 *   TxnVerify        (20): transactionalId str, producerId i64, producerEpoch i16, topic str, partition i32
 *   TxnExpireIds     (21): expirationMs i64, nowMs i64, count i32, count x transactionalId str
 * result TxnAnswer   (12): errorCode i16, producerId i64, producerEpoch i16, message str
 * </pre>
 */
final class TxnCommandCodec {
    static final byte TXN_INIT = 14;
    static final byte TXN_ADD_PARTITIONS = 15;
    static final byte TXN_END = 16;
    static final byte TXN_COMPLETE = 17;
    static final byte TXN_COMMIT_OFFSET = 18;
    static final byte TXN_END_OFFSETS = 19;
    static final byte TXN_VERIFY = 20;
    static final byte TXN_EXPIRE_IDS = 21;
    static final byte TXN_ANSWER = 12;

    private TxnCommandCodec() {
    }

    static ByteBuffer encode(Command command) {
        Out out = new Out();
        if (command instanceof TxnInit c) {
            out.head(TXN_INIT).string(c.transactionalId()).i32(c.timeoutMs()).i64(c.candidateProducerId())
                    .i64(c.expectedProducerId()).i16(c.expectedEpoch()).i64(c.nowMs());
        } else if (command instanceof TxnAddPartitions c) {
            out.head(TXN_ADD_PARTITIONS).string(c.transactionalId()).i64(c.producerId()).i16(c.producerEpoch())
                    .i64(c.nowMs()).u8(c.offsets()).i32(c.partitions().size());
            c.partitions().forEach(tp -> out.string(tp.topic()).i32(tp.partition()));
        } else if (command instanceof TxnEnd c) {
            out.head(TXN_END).string(c.transactionalId()).i64(c.producerId()).i16(c.producerEpoch())
                    .u8(c.commit()).u8(c.expired()).i64(c.nowMs());
        } else if (command instanceof TxnComplete c) {
            out.head(TXN_COMPLETE).string(c.transactionalId()).i64(c.producerId()).i16(c.producerEpoch())
                    .i64(c.nowMs());
        } else if (command instanceof Command.TxnEndOffsets c) {
            out.head(TXN_END_OFFSETS).i64(c.producerId()).i16(c.producerEpoch()).u8(c.commit());
        } else if (command instanceof Command.TxnCommitOffset c) {
            out.head(TXN_COMMIT_OFFSET).i64(c.producerId()).i16(c.producerEpoch()).string(c.groupId())
                    .i64(c.offset()).i32(c.leaderEpoch()).string(c.metadata()).i64(c.commitTimeMs());
        } else if (command instanceof Command.TxnVerify c) {
            out.head(TXN_VERIFY).string(c.transactionalId()).i64(c.producerId()).i16(c.producerEpoch())
                    .string(c.partition().topic()).i32(c.partition().partition());
        } else if (command instanceof Command.TxnExpireIds c) {
            out.head(TXN_EXPIRE_IDS).i64(c.expirationMs()).i64(c.nowMs()).i32(c.transactionalIds().size());
            c.transactionalIds().forEach(out::string);
        } else {
            throw new IllegalArgumentException("unknown command " + command);
        }
        return out.buffer();
    }

    static Command decodeBody(byte type, ByteBuffer in) {
        switch (type) {
            case TXN_INIT:
                return new TxnInit(id(in), in.getInt(), in.getLong(), in.getLong(), in.getShort(), in.getLong());
            case TXN_ADD_PARTITIONS:
                String id = id(in);
                long producerId = in.getLong();
                short epoch = in.getShort();
                long nowMs = in.getLong();
                boolean offsets = in.get() != 0;
                return new TxnAddPartitions(id, producerId, epoch, partitions(in), offsets, nowMs);
            case TXN_END:
                return new TxnEnd(id(in), in.getLong(), in.getShort(), in.get() != 0, in.get() != 0, in.getLong());
            case TXN_COMPLETE:
                return new TxnComplete(id(in), in.getLong(), in.getShort(), in.getLong());
            case TXN_END_OFFSETS:
                return new Command.TxnEndOffsets(in.getLong(), in.getShort(), in.get() != 0);
            case TXN_COMMIT_OFFSET:
                long committer = in.getLong();
                short committerEpoch = in.getShort();
                String group = CommandCodec.getString(in);
                if (group == null) {
                    throw new CommandFormatException("transactional offset commit without a group id");
                }
                return new Command.TxnCommitOffset(committer, committerEpoch, group, in.getLong(), in.getInt(),
                        CommandCodec.getString(in), in.getLong());
            case TXN_VERIFY:
                String verified = id(in);
                long verifiedProducer = in.getLong();
                short verifiedEpoch = in.getShort();
                return new Command.TxnVerify(verified, verifiedProducer, verifiedEpoch, partition(in));
            case TXN_EXPIRE_IDS:
                return expireIds(in);
            default:
                throw new CommandFormatException("unknown partition command type " + type);
        }
    }

    static ByteBuffer encode(Result result) {
        if (!(result instanceof Result.TxnAnswer a)) {
            throw new IllegalArgumentException("unknown result " + result);
        }
        return new Out().head(TXN_ANSWER).i16(a.error().code()).i64(a.producerId()).i16(a.producerEpoch())
                .string(a.message()).buffer();
    }

    static Result decodeResultBody(byte type, ByteBuffer in) {
        if (type != TXN_ANSWER) {
            throw new CommandFormatException("unknown partition result type " + type);
        }
        return new Result.TxnAnswer(ErrorCode.forCode(in.getShort()), in.getLong(), in.getShort(),
                CommandCodec.getString(in));
    }

    /** One transactional id's record, as {@link CoordinatorTransactions#encode} lays it out. */
    static byte[] encodeRecord(TransactionRecord r) {
        Out out = new Out().string(r.transactionalId()).i64(r.producerId()).i16(r.producerEpoch()).i32(r.timeoutMs())
                .u8Value(r.status().ordinal()).i64(r.startMs()).i64(r.lastUpdateMs()).i32(r.partitions().size());
        r.partitions().forEach(tp -> out.string(tp.topic()).i32(tp.partition()));
        out.i32(r.offsetPartitions().size());
        r.offsetPartitions().forEach(tp -> out.string(tp.topic()).i32(tp.partition()));
        return out.bytes.toByteArray();
    }

    static TransactionRecord decodeRecord(ByteBuffer in) {
        try {
            String id = id(in);
            long producerId = in.getLong();
            short epoch = in.getShort();
            int timeoutMs = in.getInt();
            int status = in.get();
            if (status < 0 || status >= TxnStatus.values().length) {
                throw new CommandFormatException("unknown transaction status " + status);
            }
            long startMs = in.getLong();
            long lastUpdateMs = in.getLong();
            TreeSet<TxnPartition> written = new TreeSet<>(partitions(in));
            return new TransactionRecord(id, producerId, epoch, timeoutMs, TxnStatus.values()[status], written,
                    new TreeSet<>(partitions(in)), startMs, lastUpdateMs);
        } catch (java.nio.BufferUnderflowException e) {
            throw new CommandFormatException("transaction record truncated");
        }
    }

    private static Command.TxnExpireIds expireIds(ByteBuffer in) {
        long expirationMs = in.getLong();
        long nowMs = in.getLong();
        int count = in.getInt();
        // Each id takes its 4-byte length at least.
        if (count < 0 || count > CoordinatorTransactions.EXPIRED_IDS_PER_COMMAND_MAX || count > in.remaining() / 4) {
            throw new CommandFormatException("transactional id expiry of " + count + " ids");
        }
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(id(in));
        }
        return new Command.TxnExpireIds(ids, expirationMs, nowMs);
    }

    private static String id(ByteBuffer in) {
        String id = CommandCodec.getString(in);
        if (id == null) {
            throw new CommandFormatException("transaction command without a transactional id");
        }
        return id;
    }

    private static List<TxnPartition> partitions(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > CoordinatorTransactions.PARTITIONS_PER_TRANSACTION_MAX || count > in.remaining() / 8) {
            throw new CommandFormatException("transaction with " + count + " partitions");
        }
        List<TxnPartition> partitions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            partitions.add(partition(in));
        }
        return partitions;
    }

    private static TxnPartition partition(ByteBuffer in) {
        String topic = CommandCodec.getString(in);
        if (topic == null) {
            throw new CommandFormatException("transaction partition without a topic");
        }
        return new TxnPartition(topic, in.getInt());
    }

    /** A growing big-endian buffer. */
    private static final class Out {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        private final ByteBuffer scratch = ByteBuffer.allocate(8);

        Out head(byte type) {
            bytes.write(CommandCodec.FORMAT_VERSION);
            bytes.write(type);
            return this;
        }

        Out i16(short value) {
            return put(scratch.clear().putShort(value));
        }

        Out i32(int value) {
            return put(scratch.clear().putInt(value));
        }

        Out i64(long value) {
            return put(scratch.clear().putLong(value));
        }

        Out u8(boolean value) {
            return u8Value(value ? 1 : 0);
        }

        Out u8Value(int value) {
            bytes.write(value);
            return this;
        }

        Out string(String value) {
            byte[] utf8 = CommandCodec.utf8(value);
            ByteBuffer encoded = ByteBuffer.allocate(CommandCodec.stringSize(utf8));
            CommandCodec.putString(encoded, utf8);
            bytes.writeBytes(encoded.array());
            return this;
        }

        private Out put(ByteBuffer written) {
            bytes.write(written.array(), 0, written.position());
            return this;
        }

        ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes.toByteArray());
        }
    }
}
