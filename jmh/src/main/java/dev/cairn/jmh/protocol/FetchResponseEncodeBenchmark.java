package dev.cairn.jmh.protocol;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferWritable;
import dev.cairn.protocol.wire.RecordsPayload;
import dev.cairn.protocol.wire.Writable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Encoding the fixed fields of a Fetch v11 response (size prefix, header, topics, partition headers) around
 * partitions whose records are file-backed payloads: the sink receives each payload through
 * {@link Writable#writeRecords} and keeps a reference, as the Netty layer will queue a file region, so no record
 * byte is copied. This is the per-fetch CPU cost apart from sendfile.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FetchResponseEncodeBenchmark {
    private static final short FETCH_VERSION = 11;
    /** The size each partition's records pretend to have on disk; never touched. */
    private static final int RECORDS_BYTES_PER_PARTITION = 1 << 20;
    private static final int TOPICS = 2;

    @Param({"1", "16"})
    public int partitionsPerTopic;

    private RequestHeader requestHeader;
    private Struct body;
    private RegionCollectingWritable sink;

    /** Stands for a file slice: its size is known, its bytes would go out by sendfile. */
    private static final class FileSliceRecords implements RecordsPayload {
        private final int sizeInBytes;

        FileSliceRecords(int sizeInBytes) {
            this.sizeInBytes = sizeInBytes;
        }

        @Override
        public int sizeInBytes() {
            return sizeInBytes;
        }

        @Override
        public void writeTo(Writable out) {
            throw new UnsupportedOperationException("file slices are sent as regions, never copied");
        }
    }

    /** Writes fixed fields into a reusable buffer and collects records payloads in order. */
    private static final class RegionCollectingWritable implements Writable {
        private final ByteBuffer fixedFields;
        private final ByteBufferWritable bytes;
        private final List<RecordsPayload> regions = new ArrayList<>();

        RegionCollectingWritable(int capacity) {
            this.fixedFields = ByteBuffer.allocateDirect(capacity);
            this.bytes = new ByteBufferWritable(fixedFields);
        }

        void reset() {
            fixedFields.clear();
            regions.clear();
        }

        @Override
        public void writeByte(byte value) {
            bytes.writeByte(value);
        }

        @Override
        public void writeShort(short value) {
            bytes.writeShort(value);
        }

        @Override
        public void writeInt(int value) {
            bytes.writeInt(value);
        }

        @Override
        public void writeLong(long value) {
            bytes.writeLong(value);
        }

        @Override
        public void writeDouble(double value) {
            bytes.writeDouble(value);
        }

        @Override
        public void writeBytes(byte[] source, int offset, int length) {
            bytes.writeBytes(source, offset, length);
        }

        @Override
        public void writeBytes(ByteBuffer source) {
            bytes.writeBytes(source);
        }

        @Override
        public void writeRecords(RecordsPayload payload) {
            regions.add(payload);
        }
    }

    @Setup
    public void setUp() {
        List<Struct> topics = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            List<Struct> partitions = new ArrayList<>();
            for (int p = 0; p < partitionsPerTopic; p++) {
                partitions.add(new Struct(FetchResponse.PartitionData.SCHEMA)
                        .set(FetchResponse.PartitionData.PARTITION_INDEX, p)
                        .set(FetchResponse.PartitionData.HIGH_WATERMARK, 1_000_000L + p)
                        .set(FetchResponse.PartitionData.LAST_STABLE_OFFSET, 1_000_000L + p)
                        .set(FetchResponse.PartitionData.LOG_START_OFFSET, 0L)
                        .set(FetchResponse.PartitionData.PREFERRED_READ_REPLICA, -1)
                        .set(FetchResponse.PartitionData.RECORDS, new FileSliceRecords(RECORDS_BYTES_PER_PARTITION)));
            }
            topics.add(new Struct(FetchResponse.FetchableTopicResponse.SCHEMA)
                    .set(FetchResponse.FetchableTopicResponse.TOPIC, "benchmark-topic-" + t)
                    .set(FetchResponse.FetchableTopicResponse.PARTITIONS, partitions));
        }
        body = new Struct(FetchResponse.SCHEMA).set(FetchResponse.RESPONSES, topics);
        requestHeader = new RequestHeader(ApiKey.FETCH.id(), FETCH_VERSION, 1, "benchmark-consumer");
        int recordsBytes = TOPICS * partitionsPerTopic * RECORDS_BYTES_PER_PARTITION;
        sink = new RegionCollectingWritable(ProtocolCodec.responseFrameBytes(requestHeader, body) - recordsBytes);
    }

    @Benchmark
    public int encodeFetchResponseFixedFields() {
        sink.reset();
        ProtocolCodec.writeResponse(requestHeader, body, sink);
        return sink.fixedFields.position() + sink.regions.size();
    }
}
