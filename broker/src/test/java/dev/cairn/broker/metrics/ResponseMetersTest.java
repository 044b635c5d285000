package dev.cairn.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.message.FetchResponse.FetchableTopicResponse;
import dev.cairn.protocol.message.FetchResponse.PartitionData;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceRequest.PartitionProduceData;
import dev.cairn.protocol.message.ProduceRequest.TopicProduceData;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.PartitionProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.TopicProduceResponse;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Errors by API and code, and per-topic bytes and records, read from answered requests. */
class ResponseMetersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ResponseMeters meters = new ResponseMeters(registry);

    private static ByteBuffer batch(int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        for (int i = 0; i < records; i++) {
            builder.append(1_000L, null, new byte[] {(byte) i});
        }
        return builder.build();
    }

    private double count(String name, String... tags) {
        Counter counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void producedBatchesCountOnlyWherePartitionsSucceededAndErrorsCountByCode() {
        ByteBuffer ok = batch(3);
        ByteBuffer refused = batch(5);
        Struct request = new Struct(ProduceRequest.SCHEMA).set(ProduceRequest.TOPIC_DATA, List.of(
                new Struct(TopicProduceData.SCHEMA).set(TopicProduceData.NAME, "orders")
                        .set(TopicProduceData.PARTITION_DATA, List.of(
                                new Struct(PartitionProduceData.SCHEMA).set(PartitionProduceData.INDEX, 0)
                                        .set(PartitionProduceData.RECORDS, ByteBufferRecords.of(ok)),
                                new Struct(PartitionProduceData.SCHEMA).set(PartitionProduceData.INDEX, 1)
                                        .set(PartitionProduceData.RECORDS, ByteBufferRecords.of(refused))))));
        Struct response = new Struct(ProduceResponse.SCHEMA).set(ProduceResponse.RESPONSES, List.of(
                new Struct(TopicProduceResponse.SCHEMA).set(TopicProduceResponse.NAME, "orders")
                        .set(TopicProduceResponse.PARTITION_RESPONSES, List.of(
                                new Struct(PartitionProduceResponse.SCHEMA).set(PartitionProduceResponse.INDEX, 0)
                                        .set(PartitionProduceResponse.ERROR_CODE, ErrorCode.NONE.code()),
                                new Struct(PartitionProduceResponse.SCHEMA).set(PartitionProduceResponse.INDEX, 1)
                                        .set(PartitionProduceResponse.ERROR_CODE,
                                                ErrorCode.NOT_LEADER_OR_FOLLOWER.code())))));

        meters.record(ApiKey.PRODUCE, request, response);
        meters.record(ApiKey.PRODUCE, request, null);

        assertEquals(3, count("cairn.topic.records.in", "topic", "orders"));
        assertEquals(ok.remaining(), count("cairn.topic.bytes.in", "topic", "orders"));
        assertEquals(1, count("cairn.request.errors", "api", "Produce", "error", "NOT_LEADER_OR_FOLLOWER"));
        assertNull(registry.find("cairn.request.errors").tags("error", "NONE").counter());
    }

    @Test
    void fetchedBytesCountPerTopic() {
        ByteBuffer records = batch(4);
        Struct response = new Struct(FetchResponse.SCHEMA).set(FetchResponse.RESPONSES, List.of(
                new Struct(FetchableTopicResponse.SCHEMA).set(FetchableTopicResponse.TOPIC, "orders")
                        .set(FetchableTopicResponse.PARTITIONS, List.of(new Struct(PartitionData.SCHEMA)
                                .set(PartitionData.RECORDS, ByteBufferRecords.of(records))
                                .set(PartitionData.ERROR_CODE, ErrorCode.NONE.code())))));

        meters.record(ApiKey.FETCH, new Struct(dev.cairn.protocol.message.FetchRequest.SCHEMA), response);

        assertEquals(records.remaining(), count("cairn.topic.bytes.out", "topic", "orders"));
    }
}
