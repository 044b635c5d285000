package dev.cairn.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.DescribeConfigsRequest;
import dev.cairn.protocol.message.DescribeConfigsRequest.DescribeConfigsResource;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.schema.SchemaCodec;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferReadable;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.ByteBufferWritable;
import dev.cairn.protocol.wire.DecodeException;
import dev.cairn.protocol.wire.RecordsPayload;
import dev.cairn.protocol.wire.Writable;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.Test;

/**
 * The entry points: framing, headers (checked against kafka-clients' own header and response parsers), the
 * version table and the ApiVersions special cases (KIP-511; shared docs kafka-protocol.md, "ApiVersions fallback").
 */
class ProtocolCodecTest {
    private static final int FRAME_BYTES_MAX = 1 << 20;
    private static final long SEED = 0xC0DEC_0001L;

    private static ByteBuffer withoutSizePrefix(ByteBuffer frame) {
        ByteBuffer received = frame.duplicate();
        ByteBuffer body = Framing.nextFrame(received, FRAME_BYTES_MAX);
        assertNotNull(body);
        assertFalse(received.hasRemaining());
        return body;
    }

    private static org.apache.kafka.common.requests.RequestHeader kafkaHeader(RequestHeader header) {
        return new org.apache.kafka.common.requests.RequestHeader(ApiKeys.forId(header.apiKey()),
                header.apiVersion(), header.clientId(), header.correlationId());
    }

    @Test
    void everySupportedRequestRoundTripsAndKafkaReadsItsHeader() {
        RandomStructs structs = new RandomStructs(SEED, true);
        for (ApiKey apiKey : ApiKey.values()) {
            for (short version = apiKey.minVersion(); version <= apiKey.maxVersion(); version++) {
                RequestHeader header = new RequestHeader(apiKey.id(), version, 1000 + version,
                        version % 2 == 0 ? null : "cairn-client-é");
                Struct body = structs.message(apiKey.requestSchema(), version);
                ByteBuffer frame = withoutSizePrefix(ProtocolCodec.encodeRequest(header, body));

                org.apache.kafka.common.requests.RequestHeader kafka =
                        org.apache.kafka.common.requests.RequestHeader.parse(frame.duplicate());
                assertEquals(apiKey.id(), kafka.apiKey().id);
                assertEquals(version, kafka.apiVersion());
                assertEquals(header.correlationId(), kafka.correlationId());
                assertEquals(header.clientId() == null ? "" : header.clientId(), kafka.clientId());
                assertEquals(apiKey.requestHeaderVersion(version), kafka.headerVersion());

                RequestFrame decoded = ProtocolCodec.decodeRequest(frame);
                assertTrue(decoded.isSupported());
                assertSame(apiKey, decoded.apiKey());
                assertEquals(header, decoded.header());
                assertEquals(body, decoded.body());
            }
        }
    }

    @Test
    void everySupportedResponseParsesWithKafkaClientsResponseParser() {
        RandomStructs structs = new RandomStructs(SEED + 1, true);
        for (ApiKey apiKey : ApiKey.values()) {
            for (short version = apiKey.minVersion(); version <= apiKey.maxVersion(); version++) {
                RequestHeader header = new RequestHeader(apiKey.id(), version, 77 + version, "c");
                Struct body = structs.message(apiKey.responseSchema(), version);
                ByteBuffer frame = withoutSizePrefix(ProtocolCodec.encodeResponse(header, body));

                AbstractResponse kafka = AbstractResponse.parseResponse(frame.duplicate(), kafkaHeader(header));
                assertArrayEquals(KafkaOracle.encode(body, version), KafkaOracle.write(kafka.data(), version),
                    apiKey + " v" + version);

                ResponseFrame decoded = ProtocolCodec.decodeResponse(frame, apiKey, version);
                assertEquals(header.correlationId(), decoded.correlationId());
                assertEquals(body, decoded.body());
            }
        }
    }

    @Test
    void decodedProduceRecordsAreASliceOfTheFrame() {
        byte[] records = {1, 2, 3, 4, 5};
        Struct partition = new Struct(ProduceRequest.PartitionProduceData.SCHEMA)
                .set(ProduceRequest.PartitionProduceData.RECORDS, ByteBufferRecords.of(ByteBuffer.wrap(records)));
        Struct topic = new Struct(ProduceRequest.TopicProduceData.SCHEMA)
                .set(ProduceRequest.TopicProduceData.PARTITION_DATA, List.of(partition));
        Struct body = new Struct(ProduceRequest.SCHEMA).set(ProduceRequest.TOPIC_DATA, List.of(topic));
        ByteBuffer frame = withoutSizePrefix(ProtocolCodec.encodeRequest(
                new RequestHeader(ApiKey.PRODUCE.id(), (short) 7, 1, null), body));

        Struct decoded = ProtocolCodec.decodeRequest(frame).body();
        Struct decodedPartition = decoded.get(ProduceRequest.TOPIC_DATA).get(0)
                .get(ProduceRequest.TopicProduceData.PARTITION_DATA).get(0);
        ByteBuffer slice = ByteBufferRecords.bufferOf(decodedPartition.get(ProduceRequest.PartitionProduceData.RECORDS));
        assertEquals(ByteBuffer.wrap(records), slice);
        frame.array()[frame.arrayOffset() + frame.limit() - 1] = 42;
        assertEquals(42, slice.get(4), "the records are not copied out of the frame");
    }

    /**
     * CreatePartitions as kafka-clients' Admin sends it (KIP-195): a topic without assignments carries a null
     * array, one with assignments a list of broker-id lists. Every version decodes with ours to those values.
     */
    @Test
    void createPartitionsRequestFromKafkaClientsDecodesWithNullAndExplicitAssignments() {
        for (short version = ApiKey.CREATE_PARTITIONS.minVersion(); version <= ApiKey.CREATE_PARTITIONS.maxVersion();
                version++) {
            CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
                    new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("grow").setCount(4)
                    .setAssignments(null));
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName("placed").setCount(3)
                    .setAssignments(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment()
                            .setBrokerIds(List.of(2, 1)))));
            CreatePartitionsRequestData kafka = new CreatePartitionsRequestData().setTopics(topics)
                    .setTimeoutMs(30_000).setValidateOnly(true);

            Struct ours = SchemaCodec.read(CreatePartitionsRequest.SCHEMA, version,
                    new ByteBufferReadable(ByteBuffer.wrap(KafkaOracle.write(kafka, version))));

            assertEquals(30_000, ours.get(CreatePartitionsRequest.TIMEOUT_MS));
            assertTrue(ours.get(CreatePartitionsRequest.VALIDATE_ONLY));
            List<Struct> decoded = ours.get(CreatePartitionsRequest.TOPICS);
            assertEquals("grow", decoded.get(0).get(CreatePartitionsRequest.CreatePartitionsTopic.NAME));
            assertEquals(4, decoded.get(0).get(CreatePartitionsRequest.CreatePartitionsTopic.COUNT));
            assertNull(decoded.get(0).get(CreatePartitionsRequest.CreatePartitionsTopic.ASSIGNMENTS), "v" + version);
            List<Struct> placed = decoded.get(1).get(CreatePartitionsRequest.CreatePartitionsTopic.ASSIGNMENTS);
            assertEquals(List.of(2, 1), placed.get(0).get(CreatePartitionsRequest.CreatePartitionsAssignment.BROKER_IDS));
            assertArrayEquals(KafkaOracle.write(kafka, version), KafkaOracle.encode(ours, version), "v" + version);
        }
    }

    /**
     * DescribeConfigs as kafka-clients' Admin.describeConfigs sends it (KIP-133, KIP-226 synonyms, KIP-569
     * documentation): a resource with null configuration keys (all) and one with a key list. Every version
     * decodes with ours to those values; documentation is asked for only from v3, where the field exists.
     */
    @Test
    void describeConfigsRequestFromKafkaClientsDecodesWithNullAndListedKeys() {
        for (short version = ApiKey.DESCRIBE_CONFIGS.minVersion(); version <= ApiKey.DESCRIBE_CONFIGS.maxVersion();
                version++) {
            DescribeConfigsRequestData kafka = new DescribeConfigsRequestData().setResources(List.of(
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                            .setResourceName("orders").setConfigurationKeys(null),
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4)
                            .setResourceName("1").setConfigurationKeys(List.of("log.retention.ms"))))
                    .setIncludeSynonyms(true).setIncludeDocumentation(version >= 3);

            Struct ours = SchemaCodec.read(DescribeConfigsRequest.SCHEMA, version,
                    new ByteBufferReadable(ByteBuffer.wrap(KafkaOracle.write(kafka, version))));

            assertTrue(ours.get(DescribeConfigsRequest.INCLUDE_SYNONYMS), "v" + version);
            assertEquals(version >= 3, ours.get(DescribeConfigsRequest.INCLUDE_DOCUMENTATION), "v" + version);
            List<Struct> resources = ours.get(DescribeConfigsRequest.RESOURCES);
            assertEquals((byte) 2, resources.get(0).get(DescribeConfigsResource.RESOURCE_TYPE));
            assertEquals("orders", resources.get(0).get(DescribeConfigsResource.RESOURCE_NAME));
            assertNull(resources.get(0).get(DescribeConfigsResource.CONFIGURATION_KEYS), "v" + version);
            assertEquals((byte) 4, resources.get(1).get(DescribeConfigsResource.RESOURCE_TYPE));
            assertEquals(List.of("log.retention.ms"), resources.get(1).get(DescribeConfigsResource.CONFIGURATION_KEYS));
            assertArrayEquals(KafkaOracle.write(kafka, version), KafkaOracle.encode(ours, version), "v" + version);
        }
    }

    @Test
    void apiVersionsResponsesAlwaysUseHeaderVersionZero() {
        RequestHeader header = new RequestHeader(ApiKey.API_VERSIONS.id(), (short) 3, 5, "c");
        ByteBuffer frame = withoutSizePrefix(ProtocolCodec.encodeResponse(header,
                ApiKey.apiVersionsResponse(ErrorCode.NONE)));
        assertEquals(5, frame.getInt(0));
        assertEquals(ErrorCode.NONE.code(), frame.getShort(Integer.BYTES), "the body follows the correlation id");
        assertEquals(ApiKey.RESPONSE_HEADER_VERSION_CLASSIC, ApiKey.API_VERSIONS.responseHeaderVersion((short) 3));
        assertEquals(ApiKey.RESPONSE_HEADER_VERSION_FLEXIBLE, ApiKey.OFFSET_FETCH.responseHeaderVersion((short) 6));
        assertEquals(ApiKey.REQUEST_HEADER_VERSION_FLEXIBLE, ApiKey.API_VERSIONS.requestHeaderVersion((short) 3));
        assertEquals(ApiKey.REQUEST_HEADER_VERSION_CLASSIC, ApiKey.PRODUCE.requestHeaderVersion((short) 7));
    }

    @Test
    void apiVersionsResponseIsComputedFromTheTable() {
        Struct response = ApiKey.apiVersionsResponse(ErrorCode.NONE);
        List<Struct> apiKeys = response.get(ApiVersionsResponse.API_KEYS);
        assertEquals(ApiKey.values().length, apiKeys.size());
        for (int i = 0; i < apiKeys.size(); i++) {
            ApiKey apiKey = ApiKey.values()[i];
            assertEquals(apiKey.id(), apiKeys.get(i).get(ApiVersionsResponse.ApiVersion.API_KEY));
            assertEquals(apiKey.advertisedMinVersion(), apiKeys.get(i).get(ApiVersionsResponse.ApiVersion.MIN_VERSION));
            assertEquals(apiKey.maxVersion(), apiKeys.get(i).get(ApiVersionsResponse.ApiVersion.MAX_VERSION));
        }
        // KAFKA-18659: Produce is advertised from v0 but only v3+ is accepted.
        assertEquals(0, ApiKey.PRODUCE.advertisedMinVersion());
        assertEquals(3, ApiKey.PRODUCE.minVersion());
        assertEquals(7, ApiKey.PRODUCE.maxVersion());
    }

    @Test
    void produceBelowVersionThreeAndUnknownApisDecodeAsUnsupported() {
        ByteBuffer produceV2 = ByteBuffer.allocate(64);
        new RequestHeader(ApiKey.PRODUCE.id(), (short) 2, 9, "c").write(new ByteBufferWritable(produceV2));
        produceV2.putShort((short) 1).putInt(1000).putInt(0).flip();
        RequestFrame frame = ProtocolCodec.decodeRequest(produceV2);
        assertFalse(frame.isSupported());
        assertSame(ApiKey.PRODUCE, frame.apiKey());
        assertNull(frame.body());

        ByteBuffer unknownApi = ByteBuffer.allocate(16).putShort((short) 57).putShort((short) 0).putInt(1)
                .putShort((short) -1).flip();
        RequestFrame unknown = ProtocolCodec.decodeRequest(unknownApi);
        assertFalse(unknown.isSupported());
        assertNull(unknown.apiKey());
        assertThrows(IllegalArgumentException.class, () -> ProtocolCodec.encodeUnsupportedVersionResponse(
            frame.header()));
    }

    @Test
    void unknownApiVersionsVersionIsAnsweredInVersionZeroAndTheJavaClientFallsBack() {
        // A kafka-clients 4.4 client sends ApiVersions v5, which Cairn does not know.
        short clientVersion = 5;
        org.apache.kafka.common.requests.RequestHeader clientHeader =
                new org.apache.kafka.common.requests.RequestHeader(ApiKeys.API_VERSIONS, clientVersion, "java", 42);
        ApiVersionsRequestData request = new ApiVersionsRequestData().setClientSoftwareName("java")
                .setClientSoftwareVersion("4.4.0");
        byte[] headerBytes = KafkaOracle.write(clientHeader.data(), clientHeader.headerVersion());
        byte[] bodyBytes = KafkaOracle.write(request, clientVersion);
        ByteBuffer requestFrame = ByteBuffer.allocate(headerBytes.length + bodyBytes.length).put(headerBytes)
                .put(bodyBytes).flip();

        RequestFrame decoded = ProtocolCodec.decodeRequest(requestFrame);
        assertFalse(decoded.isSupported());
        assertSame(ApiKey.API_VERSIONS, decoded.apiKey());
        assertEquals(42, decoded.header().correlationId());
        ByteBuffer response = withoutSizePrefix(ProtocolCodec.encodeUnsupportedVersionResponse(decoded.header()));

        ApiVersionsResponseData kafka = ((org.apache.kafka.common.requests.ApiVersionsResponse)
                AbstractResponse.parseResponse(response.duplicate(), clientHeader)).data();
        assertEquals(ErrorCode.UNSUPPORTED_VERSION.code(), kafka.errorCode());
        ApiVersionsResponseData.ApiVersion apiVersions = kafka.apiKeys().find(ApiKey.API_VERSIONS.id());
        assertEquals(0, apiVersions.minVersion());
        assertEquals(3, apiVersions.maxVersion());
        assertEquals(0, kafka.apiKeys().find(ApiKey.PRODUCE.id()).minVersion());

        ResponseFrame ours = ProtocolCodec.decodeResponse(response, ApiKey.API_VERSIONS, (short) 3);
        assertEquals(0, ours.apiVersion(), "the client side re-parses as v0");
        assertEquals(ErrorCode.UNSUPPORTED_VERSION.code(), ours.body().get(ApiVersionsResponse.ERROR_CODE));
    }

    @Test
    void ourClientReadsKafkasApiVersionsResponse() {
        ApiVersionsResponseData kafka = new ApiVersionsResponseData().setThrottleTimeMs(12)
                .setFinalizedFeaturesEpoch(99L).setZkMigrationReady(true);
        kafka.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 0).setMaxVersion((short) 13));
        kafka.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 1).setMinVersion((short) 4)
                .setMaxVersion((short) 18));
        kafka.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey().setName("metadata.version")
                .setMinVersion((short) 7).setMaxVersion((short) 27));
        short version = 3;
        byte[] bodyBytes = KafkaOracle.write(kafka, version);
        ByteBuffer frame = ByteBuffer.allocate(Integer.BYTES + bodyBytes.length).putInt(11).put(bodyBytes).flip();
        ResponseFrame ours = ProtocolCodec.decodeResponse(frame, ApiKey.API_VERSIONS, version);
        assertEquals(11, ours.correlationId());
        Struct body = ours.body();
        assertEquals(2, body.get(ApiVersionsResponse.API_KEYS).size());
        assertEquals(12, body.get(ApiVersionsResponse.THROTTLE_TIME_MS));
        assertEquals(99L, body.get(ApiVersionsResponse.FINALIZED_FEATURES_EPOCH), "a known tagged field is kept");
        assertEquals(true, body.get(ApiVersionsResponse.ZK_MIGRATION_READY));
        assertEquals("metadata.version", body.get(ApiVersionsResponse.SUPPORTED_FEATURES).get(0)
                .get(ApiVersionsResponse.SupportedFeatureKey.NAME));
    }

    @Test
    void truncatedBodiesAndMalformedHeadersAreDecodeExceptions() {
        RequestHeader header = new RequestHeader(ApiKey.METADATA.id(), (short) 4, 1, "c");
        Struct body = new Struct(MetadataRequest.SCHEMA).set(MetadataRequest.TOPICS, null);
        ByteBuffer frame = withoutSizePrefix(ProtocolCodec.encodeRequest(header, body));
        ByteBuffer shorter = frame.duplicate().limit(frame.limit() - 1);
        assertThrows(DecodeException.class, () -> ProtocolCodec.decodeRequest(shorter));
        assertThrows(DecodeException.class, () -> ProtocolCodec.decodeRequest(ByteBuffer.allocate(3)));
    }

    /**
     * librdkafka 2.x's Metadata v13 request for all topics, as captured on the wire: three bytes follow the body.
     * Kafka 4.4 answers it, so Cairn reads the body and ignores them.
     */
    @Test
    void bytesAfterARequestBodyAreIgnoredAsKafkaIgnoresThem() {
        ByteBuffer librdkafka = ByteBuffer.wrap(HexFormat.of().parseHex(
                "0003000d00000003000772646b61666b610000000000010000"));
        RequestFrame request = ProtocolCodec.decodeRequest(librdkafka);
        assertEquals(13, request.apiVersion());
        assertEquals("rdkafka", request.header().clientId());
        assertNull(request.body().get(MetadataRequest.TOPICS), "all topics");
        assertEquals(false, request.body().get(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION));
    }

    @Test
    void framingWaitsForCompleteFramesAndRejectsBadSizes() {
        ByteBuffer received = ByteBuffer.allocate(32).putInt(3).put(new byte[] {1, 2, 3}).putInt(1).put((byte) 9)
                .putInt(5).put((byte) 1).flip();
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), Framing.nextFrame(received, FRAME_BYTES_MAX));
        assertEquals(ByteBuffer.wrap(new byte[] {9}), Framing.nextFrame(received, FRAME_BYTES_MAX));
        int position = received.position();
        assertNull(Framing.nextFrame(received, FRAME_BYTES_MAX), "the third frame is incomplete");
        assertEquals(position, received.position());
        assertNull(Framing.nextFrame(ByteBuffer.allocate(3), FRAME_BYTES_MAX));
        assertThrows(DecodeException.class, () -> Framing.nextFrame(ByteBuffer.allocate(4).putInt(0, -1), 10));
        assertThrows(DecodeException.class, () -> Framing.nextFrame(ByteBuffer.allocate(4).putInt(0, 11), 10));
    }

    /** A file-like payload: it must reach the sink through writeRecords, never as copied bytes. */
    private static final class FileLikeRecords implements RecordsPayload {
        private final int sizeInBytes;

        FileLikeRecords(int sizeInBytes) {
            this.sizeInBytes = sizeInBytes;
        }

        @Override
        public int sizeInBytes() {
            return sizeInBytes;
        }

        @Override
        public void writeTo(Writable out) {
            byte[] bytes = new byte[sizeInBytes];
            Arrays.fill(bytes, (byte) 7);
            out.writeBytes(bytes);
        }
    }

    @Test
    void fetchResponseRecordsReachTheSinkAsPayloads() {
        Struct partition = new Struct(FetchResponse.PartitionData.SCHEMA)
                .set(FetchResponse.PartitionData.PARTITION_INDEX, 0)
                .set(FetchResponse.PartitionData.RECORDS, new FileLikeRecords(1000));
        Struct topic = new Struct(FetchResponse.FetchableTopicResponse.SCHEMA)
                .set(FetchResponse.FetchableTopicResponse.TOPIC, "t")
                .set(FetchResponse.FetchableTopicResponse.PARTITIONS, List.of(partition));
        Struct body = new Struct(FetchResponse.SCHEMA).set(FetchResponse.RESPONSES, List.of(topic));
        RequestHeader header = new RequestHeader(ApiKey.FETCH.id(), (short) 11, 3, "c");

        ByteBuffer sink = ByteBuffer.allocate(ProtocolCodec.responseFrameBytes(header, body));
        int[] payloads = {0};
        Writable zeroCopySink = new Writable() {
            private final ByteBufferWritable bytes = new ByteBufferWritable(sink);

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
                payloads[0]++;
                sink.position(sink.position() + payload.sizeInBytes());
            }
        };
        ProtocolCodec.writeResponse(header, body, zeroCopySink);
        assertEquals(1, payloads[0]);
        assertFalse(sink.hasRemaining(), "the size prefix and layout account for the payload bytes");
        assertEquals(sink.capacity() - Framing.SIZE_PREFIX_BYTES, sink.getInt(0));
    }
}
