package dev.cairn.jmh.protocol;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.Framing;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
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
 * Decoding a Produce request frame carrying one 16 KiB records batch for one partition, as the broker's network
 * layer does for every produce. The records stay a slice of the frame, so the cost should not grow with the
 * batch size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProduceRequestDecodeBenchmark {
    private static final int RECORDS_BYTES = 16 * 1024;
    private static final long SEED = 42L;

    /** v7 is what librdkafka 2.0-2.3 negotiates; v3 is the oldest Cairn accepts. */
    @Param({"3", "7"})
    public short version;

    private ByteBuffer frame;

    @Setup
    public void setUp() {
        byte[] records = new byte[RECORDS_BYTES];
        new SplittableRandom(SEED).nextBytes(records);
        Struct partition = new Struct(ProduceRequest.PartitionProduceData.SCHEMA)
                .set(ProduceRequest.PartitionProduceData.INDEX, 0)
                .set(ProduceRequest.PartitionProduceData.RECORDS, ByteBufferRecords.of(ByteBuffer.wrap(records)));
        Struct topic = new Struct(ProduceRequest.TopicProduceData.SCHEMA)
                .set(ProduceRequest.TopicProduceData.NAME, "benchmark-topic")
                .set(ProduceRequest.TopicProduceData.PARTITION_DATA, List.of(partition));
        Struct body = new Struct(ProduceRequest.SCHEMA)
                .set(ProduceRequest.ACKS, (short) -1)
                .set(ProduceRequest.TIMEOUT_MS, 30_000)
                .set(ProduceRequest.TOPIC_DATA, List.of(topic));
        RequestHeader header = new RequestHeader(ApiKey.PRODUCE.id(), version, 1, "benchmark-producer");
        ByteBuffer sized = ProtocolCodec.encodeRequest(header, body);
        frame = Framing.nextFrame(sized, Integer.MAX_VALUE);
    }

    @Benchmark
    public RequestFrame decodeProduceRequest() {
        return ProtocolCodec.decodeRequest(frame);
    }
}
