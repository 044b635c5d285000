package dev.cairn.broker.cli;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.ResponseFrame;
import dev.cairn.protocol.schema.Struct;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * One blocking Kafka-protocol connection for the admin commands: sends a request, waits for its response. Every
 * API is spoken in the highest version Cairn serves, so no version negotiation is needed against a Cairn broker.
 * Connect and read are bounded by the timeout given; a response frame larger than {@link #RESPONSE_BYTES_MAX} is
 * refused rather than allocated.
 */
final class AdminConnection implements Closeable {
    /** The largest response frame read; admin responses are small, a larger length means a broken peer. */
    static final int RESPONSE_BYTES_MAX = 64 * 1024 * 1024;
    private static final String CLIENT_ID = "cairn-admin";

    private final String address;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int nextCorrelationId;

    private AdminConnection(String address, Socket socket) throws IOException {
        this.address = address;
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code host:port}, waiting at most {@code timeoutMs} to connect and for each response. */
    static AdminConnection open(String host, int port, int timeoutMs) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            return new AdminConnection(host + ":" + port, socket);
        } catch (IOException e) {
            socket.close();
            throw new IOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    String address() {
        return address;
    }

    /** Sends {@code body} as {@code apiKey} in its highest served version and returns the response body. */
    Struct send(ApiKey apiKey, Struct body) throws IOException {
        short version = apiKey.maxVersion();
        int correlationId = nextCorrelationId++;
        ByteBuffer request = ProtocolCodec.encodeRequest(
                new RequestHeader(apiKey.id(), version, correlationId, CLIENT_ID), body);
        out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
        out.flush();
        int frameBytes = in.readInt();
        if (frameBytes < 0 || frameBytes > RESPONSE_BYTES_MAX) {
            throw new IOException(address + " sent a response frame of " + frameBytes + " bytes (at most "
                    + RESPONSE_BYTES_MAX + " accepted)");
        }
        byte[] frame = new byte[frameBytes];
        in.readFully(frame);
        ResponseFrame response;
        try {
            response = ProtocolCodec.decodeResponse(ByteBuffer.wrap(frame), apiKey, version);
        } catch (RuntimeException e) {
            throw new IOException(address + " sent a malformed " + apiKey.apiName() + " response: " + e.getMessage(),
                    e);
        }
        if (response.correlationId() != correlationId) {
            throw new IOException(address + " answered correlation id " + response.correlationId() + ", expected "
                    + correlationId);
        }
        return response.body();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
