package dev.cairn.client;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A one-node, one-partition fake broker speaking just enough Kafka (ApiVersions, Metadata, InitProducerId,
 * Produce) through Cairn's codec, whose Produce answers a test can script. It keeps Kafka's idempotence rules
 * (kafka-protocol.md A.3): a new producer id or a higher epoch must start at sequence 0, a lower epoch gets
 * INVALID_PRODUCER_EPOCH, a duplicate gets its original offset, a gap gets OUT_OF_ORDER_SEQUENCE_NUMBER. The log it keeps is the list of appended record values.
 */
final class ScriptedBroker implements AutoCloseable {
    static final String TOPIC = "scripted";
    private static final int FRAME_BYTES_MAX = 64 * 1024 * 1024;

    /** What a Produce batch looked like when it arrived. */
    record BatchInfo(long producerId, short producerEpoch, int baseSequence, int recordsCount) {
    }

    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Socket> sockets = new ArrayList<>();
    private final Function<BatchInfo, ErrorCode> script;
    private final List<byte[]> log = new ArrayList<>();
    private final Map<Long, Integer> nextSequenceByProducer = new HashMap<>();
    private final Map<Long, Short> epochByProducer = new HashMap<>();
    private final Set<Short> epochsSeen = new HashSet<>();
    private final Map<String, Long> offsetBySequenceRange = new HashMap<>();
    private final AtomicInteger metadataRequests = new AtomicInteger();
    private final AtomicInteger producerIdsIssued = new AtomicInteger();
    private volatile short issuedEpoch;

    /** @param script the error to answer a batch with before any idempotence check, or NONE to process it */
    ScriptedBroker(Function<BatchInfo, ErrorCode> script) throws IOException {
        this.script = script;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "scripted-broker-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String bootstrap() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    synchronized List<byte[]> log() {
        return List.copyOf(log);
    }

    /** The epoch InitProducerId answers with from now on (0 unless set). */
    void issueEpoch(short epoch) {
        issuedEpoch = epoch;
    }

    /** The producer epochs of the batches appended so far. */
    synchronized Set<Short> epochsAppended() {
        return Set.copyOf(epochsSeen);
    }

    int metadataRequests() {
        return metadataRequests.get();
    }

    int producerIdsIssued() {
        return producerIdsIssued.get();
    }

    private void acceptLoop() {
        try {
            while (!server.isClosed()) {
                Socket socket = server.accept();
                synchronized (sockets) {
                    sockets.add(socket);
                }
                Thread connection = new Thread(() -> serve(socket), "scripted-broker-connection");
                connection.setDaemon(true);
                connection.start();
            }
        } catch (IOException closed) {
            // The server socket was closed by close(): the fake stops accepting.
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                int size = in.readInt();
                if (size < 0 || size > FRAME_BYTES_MAX) {
                    return;
                }
                byte[] frame = new byte[size];
                in.readFully(frame);
                RequestFrame request = ProtocolCodec.decodeRequest(ByteBuffer.wrap(frame));
                Struct response = answer(request);
                ByteBuffer encoded = ProtocolCodec.encodeResponse(request.header(), response);
                out.write(encoded.array(), encoded.arrayOffset() + encoded.position(), encoded.remaining());
                out.flush();
            }
        } catch (IOException disconnected) {
            // The client closed the connection or the test closed the fake.
        }
    }

    private Struct answer(RequestFrame request) {
        switch (request.apiKey()) {
            case API_VERSIONS:
                return ApiKey.apiVersionsResponse(ErrorCode.NONE);
            case METADATA:
                metadataRequests.incrementAndGet();
                return metadata();
            case INIT_PRODUCER_ID:
                return new Struct(InitProducerIdResponse.SCHEMA)
                        .set(InitProducerIdResponse.ERROR_CODE, ErrorCode.NONE.code())
                        .set(InitProducerIdResponse.PRODUCER_ID, 1_000L + producerIdsIssued.getAndIncrement())
                        .set(InitProducerIdResponse.PRODUCER_EPOCH, issuedEpoch);
            case PRODUCE:
                return produce(request.body());
            default:
                throw new IllegalStateException("the scripted broker does not serve " + request.apiKey());
        }
    }

    private Struct metadata() {
        Struct broker = new Struct(MetadataResponse.MetadataResponseBroker.SCHEMA)
                .set(MetadataResponse.MetadataResponseBroker.NODE_ID, 0)
                .set(MetadataResponse.MetadataResponseBroker.HOST, "127.0.0.1")
                .set(MetadataResponse.MetadataResponseBroker.PORT, server.getLocalPort());
        Struct partition = new Struct(MetadataResponse.MetadataResponsePartition.SCHEMA)
                .set(MetadataResponse.MetadataResponsePartition.ERROR_CODE, ErrorCode.NONE.code())
                .set(MetadataResponse.MetadataResponsePartition.PARTITION_INDEX, 0)
                .set(MetadataResponse.MetadataResponsePartition.LEADER_ID, 0)
                .set(MetadataResponse.MetadataResponsePartition.REPLICA_NODES, List.of(0))
                .set(MetadataResponse.MetadataResponsePartition.ISR_NODES, List.of(0));
        Struct topic = new Struct(MetadataResponse.MetadataResponseTopic.SCHEMA)
                .set(MetadataResponse.MetadataResponseTopic.ERROR_CODE, ErrorCode.NONE.code())
                .set(MetadataResponse.MetadataResponseTopic.NAME, TOPIC)
                .set(MetadataResponse.MetadataResponseTopic.PARTITIONS, List.of(partition));
        return new Struct(MetadataResponse.SCHEMA)
                .set(MetadataResponse.BROKERS, List.of(broker))
                .set(MetadataResponse.CLUSTER_ID, "scripted")
                .set(MetadataResponse.CONTROLLER_ID, 0)
                .set(MetadataResponse.TOPICS, List.of(topic));
    }

    private Struct produce(Struct request) {
        Struct topicData = request.get(ProduceRequest.TOPIC_DATA).get(0);
        Struct partitionData = topicData.get(ProduceRequest.TopicProduceData.PARTITION_DATA).get(0);
        RecordBatch batch = RecordBatch.of(ByteBufferRecords.bufferOf(
                partitionData.get(ProduceRequest.PartitionProduceData.RECORDS)));
        BatchInfo info = new BatchInfo(batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.recordsCount());
        ErrorCode error = script.apply(info);
        long baseOffset = -1;
        if (error == ErrorCode.NONE) {
            synchronized (this) {
                String range = info.producerId() + ":" + info.producerEpoch() + ":" + info.baseSequence() + ":"
                        + info.recordsCount();
                short knownEpoch = epochByProducer.getOrDefault(info.producerId(), info.producerEpoch());
                int expected = info.producerEpoch() > knownEpoch ? 0
                        : nextSequenceByProducer.getOrDefault(info.producerId(), 0);
                if (info.producerEpoch() < knownEpoch) {
                    error = ErrorCode.INVALID_PRODUCER_EPOCH;
                } else if (offsetBySequenceRange.containsKey(range)) {
                    baseOffset = offsetBySequenceRange.get(range);
                } else if (info.baseSequence() != expected) {
                    error = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
                } else {
                    baseOffset = log.size();
                    RecordCursor cursor = new RecordCursor().reset(batch);
                    while (cursor.next()) {
                        ByteBuffer value = cursor.value();
                        byte[] bytes = new byte[value.remaining()];
                        value.get(bytes);
                        log.add(bytes);
                    }
                    offsetBySequenceRange.put(range, baseOffset);
                    nextSequenceByProducer.put(info.producerId(), expected + info.recordsCount());
                    epochByProducer.put(info.producerId(), info.producerEpoch());
                    epochsSeen.add(info.producerEpoch());
                }
            }
        }
        Struct partition = new Struct(ProduceResponse.PartitionProduceResponse.SCHEMA)
                .set(ProduceResponse.PartitionProduceResponse.INDEX, 0)
                .set(ProduceResponse.PartitionProduceResponse.ERROR_CODE, error.code())
                .set(ProduceResponse.PartitionProduceResponse.BASE_OFFSET, baseOffset);
        Struct topic = new Struct(ProduceResponse.TopicProduceResponse.SCHEMA)
                .set(ProduceResponse.TopicProduceResponse.NAME, TOPIC)
                .set(ProduceResponse.TopicProduceResponse.PARTITION_RESPONSES, List.of(partition));
        return new Struct(ProduceResponse.SCHEMA).set(ProduceResponse.RESPONSES, List.of(topic));
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
