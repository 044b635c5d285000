package dev.cairn.broker.metrics;

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
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.schema.Field;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.RecordsPayload;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What operators read from answered requests, as Kafka's broker meters them: errors by API and error code (every
 * {@code ErrorCode} field of a response, top level and per partition), and per topic the bytes and records produced
 * (partitions answered without error) and the bytes fetched. Topics are meter tags, one set per topic the broker has
 * served; at most {@link #TOPICS_MAX} topics are tagged, the rest count under {@code topic="other"}.
 */
final class ResponseMeters {
    /** Topics given their own meters; beyond, one shared tag keeps the registry bounded. */
    static final int TOPICS_MAX = 10_000;
    static final String OTHER_TOPICS = "other";
    private static final String ERROR_CODE_FIELD = "ErrorCode";

    private final MeterRegistry registry;
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final Map<String, TopicMeters> topics = new ConcurrentHashMap<>();

    private record TopicMeters(Counter bytesIn, Counter recordsIn, Counter bytesOut) {
    }

    ResponseMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Meters one answered request; {@code response} is null when none is sent (acks=0). */
    void record(ApiKey api, Struct request, Struct response) {
        if (response == null) {
            return;
        }
        countErrors(api, response);
        if (api == ApiKey.PRODUCE) {
            meterProduce(request, response);
        } else if (api == ApiKey.FETCH) {
            meterFetch(response);
        }
    }

    private void countErrors(ApiKey api, Struct struct) {
        for (Field<?> field : struct.schema().fields()) {
            Object value = struct.get(field);
            if (ERROR_CODE_FIELD.equals(field.name()) && value instanceof Short code && code != 0) {
                String name = ErrorCode.forCode(code).name();
                errors.computeIfAbsent(api.apiName() + "/" + name, key -> Counter.builder("cairn.request.errors")
                        .description("Error codes in responses (top level and per partition), by API and error")
                        .tag("api", api.apiName()).tag("error", name).register(registry)).increment();
            } else if (value instanceof List<?> list) {
                for (Object element : list) {
                    if (element instanceof Struct child) {
                        countErrors(api, child);
                    }
                }
            }
        }
    }

    private void meterProduce(Struct request, Struct response) {
        Map<String, Map<Integer, Short>> outcomes = new HashMap<>();
        for (Struct topic : response.get(ProduceResponse.RESPONSES)) {
            Map<Integer, Short> byPartition = outcomes.computeIfAbsent(topic.get(TopicProduceResponse.NAME),
                    k -> new HashMap<>());
            for (Struct partition : topic.get(TopicProduceResponse.PARTITION_RESPONSES)) {
                byPartition.put(partition.get(PartitionProduceResponse.INDEX),
                        partition.get(PartitionProduceResponse.ERROR_CODE));
            }
        }
        for (Struct topic : request.get(ProduceRequest.TOPIC_DATA)) {
            String name = topic.get(TopicProduceData.NAME);
            Map<Integer, Short> byPartition = outcomes.getOrDefault(name, Map.of());
            long bytes = 0;
            long records = 0;
            for (Struct partition : topic.get(TopicProduceData.PARTITION_DATA)) {
                RecordsPayload payload = partition.get(PartitionProduceData.RECORDS);
                if (payload == null || byPartition.getOrDefault(partition.get(PartitionProduceData.INDEX),
                        (short) -1) != ErrorCode.NONE.code()) {
                    continue;
                }
                bytes += payload.sizeInBytes();
                records += recordCount(payload);
            }
            if (bytes > 0) {
                TopicMeters meters = topic(name);
                meters.bytesIn().increment(bytes);
                meters.recordsIn().increment(records);
            }
        }
    }

    private void meterFetch(Struct response) {
        for (Struct topic : response.get(FetchResponse.RESPONSES)) {
            long bytes = 0;
            for (Struct partition : topic.get(FetchableTopicResponse.PARTITIONS)) {
                RecordsPayload payload = partition.get(PartitionData.RECORDS);
                bytes += payload == null ? 0 : payload.sizeInBytes();
            }
            if (bytes > 0) {
                topic(topic.get(FetchableTopicResponse.TOPIC)).bytesOut().increment(bytes);
            }
        }
    }

    /** The records in the batches of a produced payload, read from each batch header. */
    private static long recordCount(RecordsPayload payload) {
        if (!(payload instanceof ByteBufferRecords records)) {
            return 0;
        }
        ByteBuffer buffer = records.buffer();
        long count = 0;
        int position = buffer.position();
        while (position + RecordBatchDescriptor.RECORDS_COUNT_OFFSET + 4 <= buffer.limit()) {
            int length = buffer.getInt(position + RecordBatchDescriptor.LENGTH_OFFSET);
            count += Math.max(0, buffer.getInt(position + RecordBatchDescriptor.RECORDS_COUNT_OFFSET));
            if (length <= 0) {
                break;
            }
            position += RecordBatchDescriptor.LOG_OVERHEAD_BYTES + length;
        }
        return count;
    }

    private TopicMeters topic(String name) {
        String tag = topics.containsKey(name) || topics.size() < TOPICS_MAX ? name : OTHER_TOPICS;
        return topics.computeIfAbsent(tag, t -> new TopicMeters(
                Counter.builder("cairn.topic.bytes.in").description("Bytes of record batches produced to a topic")
                        .tag("topic", t).register(registry),
                Counter.builder("cairn.topic.records.in").description("Records produced to a topic")
                        .tag("topic", t).register(registry),
                Counter.builder("cairn.topic.bytes.out").description("Bytes of record batches fetched from a topic")
                        .tag("topic", t).register(registry)));
    }
}
