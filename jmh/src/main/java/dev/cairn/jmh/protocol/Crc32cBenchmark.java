package dev.cairn.jmh.protocol;

import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The two per-batch costs on the produce path: the CRC-32C check over a batch and the record walk that
 * validation does.
 *
 * <p>The CRC benchmarks count one operation per byte and report per nanosecond, so their score reads directly
 * as GB/s (10^9 bytes per second). The iteration benchmark counts one operation per record and reports per
 * microsecond, so its score is millions of records per second over an uncompressed 16 KiB batch (Kafka's
 * default producer {@code batch.size}).
 *
 * <pre>
 *   mvn -B -ntp -q -pl protocol,jmh -am package -DskipTests
 *   java -jar jmh/target/cairn-benchmarks.jar Crc32c -f 1 -wi 2 -i 3 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class Crc32cBenchmark {
    /** The CRC input: 1 MiB, the size of Kafka's default max.message.bytes. */
    private static final int CRC_INPUT_BYTES = 1024 * 1024;
    /** Kafka's default producer batch.size. */
    private static final int ITERATION_BATCH_BYTES_MAX = 16 * 1024;
    /** Records in the iteration batch; values are sized so the batch just fits ITERATION_BATCH_BYTES_MAX. */
    private static final int ITERATION_RECORDS = 128;
    private static final int ITERATION_KEY_BYTES = 8;
    private static final long SEED = 42L;
    private static final long TIMESTAMP_MS = 1_700_000_000_000L;

    private ByteBuffer heapInput;
    private ByteBuffer directInput;
    private RecordBatch megabyteBatch;
    private RecordBatch iterationBatch;
    private final RecordCursor cursor = new RecordCursor();

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(SEED);
        byte[] bytes = new byte[CRC_INPUT_BYTES];
        random.nextBytes(bytes);
        heapInput = ByteBuffer.wrap(bytes);
        directInput = ByteBuffer.allocateDirect(CRC_INPUT_BYTES).put(bytes).flip();
        megabyteBatch = RecordBatch.of(megabyteBatch(random));
        iterationBatch = RecordBatch.of(iterationBatch(random));
        if (iterationBatch.recordsCount() != ITERATION_RECORDS
                || iterationBatch.sizeInBytes() > ITERATION_BATCH_BYTES_MAX) {
            throw new IllegalStateException("iteration batch is " + iterationBatch.sizeInBytes() + " bytes");
        }
    }

    @Benchmark
    @OperationsPerInvocation(CRC_INPUT_BYTES)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long crc32cHeap1MiB() {
        CRC32C crc = new CRC32C();
        crc.update(heapInput.duplicate());
        return crc.getValue();
    }

    @Benchmark
    @OperationsPerInvocation(CRC_INPUT_BYTES)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long crc32cDirect1MiB() {
        CRC32C crc = new CRC32C();
        crc.update(directInput.duplicate());
        return crc.getValue();
    }

    /** RecordBatch.computeChecksum over a batch whose checksummed bytes are exactly 1 MiB. */
    @Benchmark
    @OperationsPerInvocation(CRC_INPUT_BYTES)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long batchChecksum1MiB() {
        return megabyteBatch.computeChecksum();
    }

    /** Walks every record of an uncompressed 16 KiB batch, touching each key and value position. */
    @Benchmark
    @OperationsPerInvocation(ITERATION_RECORDS)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long iterateRecordsUncompressed16KiB() {
        long sum = 0;
        cursor.reset(iterationBatch);
        while (cursor.next()) {
            sum += cursor.offset() + cursor.timestamp() + cursor.keyOffset() + cursor.valueSize();
        }
        return sum;
    }

    /** One record whose value makes the bytes under the CRC (attributes to end) exactly CRC_INPUT_BYTES. */
    private static ByteBuffer megabyteBatch(SplittableRandom random) {
        int recordsBytes = CRC_INPUT_BYTES + RecordBatchDescriptor.ATTRIBUTES_OFFSET
                - RecordBatchDescriptor.RECORDS_OFFSET;
        int valueBytes = recordsBytes;
        while (RecordBatchBuilder.recordSizeInBytes(0, 0, null, ByteBuffer.allocate(valueBytes)) > recordsBytes) {
            valueBytes--;
        }
        byte[] value = new byte[valueBytes];
        random.nextBytes(value);
        ByteBuffer batch = new RecordBatchBuilder(CompressionType.NONE).append(TIMESTAMP_MS, null, value).build();
        int checksummedBytes = batch.remaining() - RecordBatchDescriptor.ATTRIBUTES_OFFSET;
        if (checksummedBytes != CRC_INPUT_BYTES) {
            throw new IllegalStateException("checksummed bytes " + checksummedBytes + " != " + CRC_INPUT_BYTES);
        }
        return batch;
    }

    private static ByteBuffer iterationBatch(SplittableRandom random) {
        for (int valueBytes = ITERATION_BATCH_BYTES_MAX / ITERATION_RECORDS; valueBytes > 0; valueBytes--) {
            RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
            for (int i = 0; i < ITERATION_RECORDS; i++) {
                byte[] key = new byte[ITERATION_KEY_BYTES];
                byte[] value = new byte[valueBytes];
                random.nextBytes(key);
                random.nextBytes(value);
                builder.append(TIMESTAMP_MS + i, key, value);
            }
            if (builder.uncompressedSizeInBytes() <= ITERATION_BATCH_BYTES_MAX) {
                return builder.build();
            }
        }
        throw new IllegalStateException("no value size fits " + ITERATION_RECORDS + " records in a batch");
    }
}
