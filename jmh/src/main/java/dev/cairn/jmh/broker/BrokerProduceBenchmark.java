package dev.cairn.jmh.broker;

import dev.cairn.broker.Broker;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.client.AdminConfig;
import dev.cairn.client.CairnAdmin;
import dev.cairn.client.NewTopic;
import dev.cairn.jmh.log.BenchBatches;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.ResponseFrame;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The whole broker path of a produce, for allocation per produced MiB (issue 17, acceptance 5; run with
 * {@code -prof gc}, which counts every thread of the JVM, the broker's included): an in-process single-node broker
 * ({@link Broker#start}, its Kafka listener on a loopback port it picks) on Cairn's Raft engine or on Ratis
 * ({@code engine}), and Produce v7 requests (acks=all, one batch of {@code batchBytes} to one partition) written
 * on one connection by a blocking channel that allocates nothing per request: the frames are encoded once, and each
 * response is read into one reused buffer and checked by its error code. One op = one batch; {@code pipelined}
 * writes {@value #PIPELINE_DEPTH} requests, then reads their responses (Kafka answers a connection in order).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BrokerProduceBenchmark {
    /** Requests in flight on the connection in {@link #pipelined}. */
    static final int PIPELINE_DEPTH = 64;
    private static final String TOPIC = "bench";
    private static final short PRODUCE_VERSION = 7;
    private static final int REQUEST_TIMEOUT_MS = 30_000;
    /** A produce response for one partition of {@link #TOPIC} is far smaller; a larger one is an error. */
    private static final int RESPONSE_BYTES_MAX = 4096;
    /**
     * Where the first partition's error code lies in a Produce v7 response after its size prefix: correlation id,
     * topic array length, topic name (int16 length and bytes), partition array length, partition index.
     */
    private static final int ERROR_CODE_POSITION = 4 + 4 + 2 + TOPIC.length() + 4 + 4;

    /** A record's size in a batch, and what of it is not the value (length, attributes, deltas, key, headers). */
    private static final int RECORD_BYTES = 1024;
    private static final int RECORD_OVERHEAD_BYTES = 12;
    private static final long SEED = 42L;
    /** How long the partition may take to take produce after the topic is created, and the pause between tries. */
    private static final long READY_WAIT_MS_MAX = 60_000;
    private static final long READY_RETRY_MS = 50;

    @Param({"cairn", "ratis"})
    String engine;

    @Param({"1024", "65536"})
    int batchBytes;

    private Path dir;
    private Broker broker;
    private SocketChannel channel;
    private ByteBuffer oneRequest;
    private ByteBuffer pipelinedRequests;
    private final ByteBuffer responseSize = ByteBuffer.allocateDirect(4);
    private final ByteBuffer response = ByteBuffer.allocateDirect(RESPONSE_BYTES_MAX);

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        dir = BenchBatches.tempDirectory();
        broker = Broker.start(BrokerConfig.fromMap(Map.of("listeners", "127.0.0.1:0",
                "raft.listener", "127.0.0.1:" + LoopbackPorts.free(), "log.dirs", dir.toString(),
                "raft.engine", engine)));
        try {
            connect();
        } catch (IOException | RuntimeException failed) {
            tearDown();
            throw failed;
        }
    }

    private void connect() throws IOException {
        String bootstrap = "127.0.0.1:" + broker.kafkaPort();
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(bootstrap).build())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, 1)));
        }
        ByteBuffer batch = batchOfRecords(batchBytes);
        oneRequest = toDirect(encode(batch, 0));
        pipelinedRequests = ByteBuffer.allocateDirect(oneRequest.remaining() * PIPELINE_DEPTH);
        for (int i = 0; i < PIPELINE_DEPTH; i++) {
            pipelinedRequests.put(encode(batch, i));
        }
        pipelinedRequests.flip();
        channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", broker.kafkaPort()));
        channel.socket().setTcpNoDelay(true);
        firstProduceSucceeds();
    }

    /**
     * A batch of about {@code batchBytes}: records of about 1 KiB each (as Kafka's ProducerPerformance sends them),
     * values of random bytes, stamped with the current time as a producer stamps them (an old timestamp would roll
     * the segment by time on every append).
     */
    static ByteBuffer batchOfRecords(int batchBytes) {
        int records = Math.max(1, batchBytes / RECORD_BYTES);
        byte[] value = new byte[RECORD_BYTES - RECORD_OVERHEAD_BYTES];
        new SplittableRandom(SEED).nextBytes(value);
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        long now = System.currentTimeMillis();
        for (int i = 0; i < records; i++) {
            builder.append(now, null, value);
        }
        return builder.build();
    }

    private static ByteBuffer encode(ByteBuffer batch, int correlationId) {
        Struct partition = new Struct(ProduceRequest.PartitionProduceData.SCHEMA)
                .set(ProduceRequest.PartitionProduceData.INDEX, 0)
                .set(ProduceRequest.PartitionProduceData.RECORDS, ByteBufferRecords.of(batch.duplicate()));
        Struct topic = new Struct(ProduceRequest.TopicProduceData.SCHEMA)
                .set(ProduceRequest.TopicProduceData.NAME, TOPIC)
                .set(ProduceRequest.TopicProduceData.PARTITION_DATA, List.of(partition));
        Struct body = new Struct(ProduceRequest.SCHEMA)
                .set(ProduceRequest.ACKS, (short) -1)
                .set(ProduceRequest.TIMEOUT_MS, REQUEST_TIMEOUT_MS)
                .set(ProduceRequest.TOPIC_DATA, List.of(topic));
        return ProtocolCodec.encodeRequest(
                new RequestHeader(ApiKey.PRODUCE.id(), PRODUCE_VERSION, correlationId, "bench-producer"), body);
    }

    private static ByteBuffer toDirect(ByteBuffer heap) {
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.remaining());
        direct.put(heap).flip();
        return direct;
    }

    /**
     * Sends the first produce until it succeeds (the partition may not have elected its leader yet), decoding each
     * response in full, and checks that the error code is where every later response is checked.
     */
    private void firstProduceSucceeds() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WAIT_MS_MAX);
        while (true) {
            write(oneRequest);
            readResponse();
            ByteBuffer copy = ByteBuffer.allocate(response.remaining());
            copy.put(response.duplicate()).flip();
            ResponseFrame frame = ProtocolCodec.decodeResponse(copy, ApiKey.PRODUCE, PRODUCE_VERSION);
            Struct partition = frame.body().get(ProduceResponse.RESPONSES).get(0)
                    .get(ProduceResponse.TopicProduceResponse.PARTITION_RESPONSES).get(0);
            short error = partition.get(ProduceResponse.PartitionProduceResponse.ERROR_CODE);
            if (response.getShort(ERROR_CODE_POSITION) != error) {
                throw new IllegalStateException("a Produce v7 response's error code is not at position "
                        + ERROR_CODE_POSITION);
            }
            if (error == ErrorCode.NONE.code()) {
                return;
            }
            ErrorCode code = ErrorCode.forCode(error);
            if (code == null || !code.retriable() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the first produce failed with error code " + error);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(READY_RETRY_MS));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (channel != null) {
            channel.close();
        }
        if (broker != null) {
            broker.close();
        }
        BenchBatches.deleteRecursively(dir);
    }

    private void write(ByteBuffer requests) throws IOException {
        ByteBuffer pending = requests.duplicate();
        while (pending.hasRemaining()) {
            channel.write(pending);
        }
    }

    /** Reads one response into {@link #response} (position 0 to its end) and checks its error code. */
    private void readResponse() throws IOException {
        responseSize.clear();
        readFully(responseSize);
        int size = responseSize.getInt(0);
        if (size <= ERROR_CODE_POSITION || size > RESPONSE_BYTES_MAX) {
            throw new IllegalStateException("unexpected response size " + size);
        }
        response.clear().limit(size);
        readFully(response);
        response.flip();
    }

    private void readFully(ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into) < 0) {
                throw new IOException("the broker closed the connection");
            }
        }
    }

    private short checkedResponse() throws IOException {
        readResponse();
        short error = response.getShort(ERROR_CODE_POSITION);
        if (error != ErrorCode.NONE.code()) {
            throw new IllegalStateException("produce failed with error code " + error);
        }
        return error;
    }

    /** One produce at a time, as a synchronous one-by-one producer sends. */
    @Benchmark
    public short oneByOne() throws IOException {
        write(oneRequest);
        return checkedResponse();
    }

    /** {@value #PIPELINE_DEPTH} produces written together, then their responses read. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE_DEPTH)
    public short pipelined() throws IOException {
        write(pipelinedRequests);
        short last = 0;
        for (int i = 0; i < PIPELINE_DEPTH; i++) {
            last = checkedResponse();
        }
        return last;
    }
}
