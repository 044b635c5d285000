package dev.cairn.broker.net;

import dev.cairn.broker.config.ConfigException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.net.InetSocketAddress;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS on the Cairn Raft engine's connections ({@link RaftFrameTransport}), from raft.ssl.* as the Ratis path
 * reads it: the server requires a client certificate its trust manager accepts, and a connecting broker presents its
 * own and checks the server's certificate and host name (the address the peer registered), as Ratis's gRPC channels
 * do. OpenSSL (netty-tcnative's BoringSSL) where its native library loads, the JDK's engine otherwise.
 */
public final class RaftFrameTls {
    private final SslContext server;
    private final SslContext client;

    private RaftFrameTls(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /** Contexts from this broker's key and the certificates it trusts; ConfigException if they cannot be used. */
    public static RaftFrameTls of(KeyManagerFactory keys, TrustManagerFactory trust) {
        SslProvider provider = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        try {
            return new RaftFrameTls(
                    SslContextBuilder.forServer(keys).trustManager(trust).clientAuth(ClientAuth.REQUIRE)
                            .sslProvider(provider).build(),
                    SslContextBuilder.forClient().keyManager(keys).trustManager(trust).sslProvider(provider).build());
        } catch (SSLException e) {
            throw new ConfigException("raft.ssl.*: the Raft engine's TLS contexts cannot be built: " + e.getMessage());
        }
    }

    /** The handler that accepts a peer's connection. */
    SslHandler serverHandler(ByteBufAllocator allocator) {
        return server.newHandler(allocator);
    }

    /** The handler of a connection to the peer at {@code address}, whose certificate must name that host. */
    SslHandler clientHandler(ByteBufAllocator allocator, InetSocketAddress address) {
        SslHandler handler = client.newHandler(allocator, address.getHostString(), address.getPort());
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(parameters);
        return handler;
    }
}
