package dev.cairn.broker.net;

import dev.cairn.broker.logging.WarningLimiter;
import dev.cairn.raft.runtime.FrameCodec;
import dev.cairn.raft.runtime.FrameFormatException;
import dev.cairn.raft.runtime.RaftTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's transport for Cairn's multi-Raft engine ({@code dev.cairn.raft.runtime}, docs/multi-raft.md): a
 * Netty server on the Raft port takes frames from every peer and hands them to the engine; frames to a peer go over
 * one outbound connection to it, whatever the number of groups. So each broker pair has two connections, one each
 * way. On the wire each frame is preceded by its length (a 4-byte big-endian int, at most
 * {@link FrameCodec#FRAME_BYTES_MAX}).
 *
 * <p>Sending never blocks the engine's loops: a frame to a peer that is not connected starts a connection (no more
 * often than {@link #RECONNECT_MS}) and is dropped, and a frame to a peer whose connection holds more than
 * {@link #OUTBOUND_BYTES_MAX} unsent bytes is dropped too: Raft resends what a peer did not acknowledge. A malformed
 * frame closes the connection it came on.
 */
public final class RaftFrameTransport implements RaftTransport, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftFrameTransport.class);
    /** Unsent bytes queued on one peer's connection before frames to it are dropped. */
    public static final int OUTBOUND_BYTES_MAX = 16 * 1024 * 1024;
    /** A connection attempt to a peer at most this often. */
    public static final long RECONNECT_MS = 200;
    /**
     * How often a connection's remote address is checked against where the peer is now: a peer that restarted on
     * another port leaves its old address to whatever binds it next (another broker's Kafka listener, say), which
     * may accept the connection and swallow every frame.
     */
    static final long ADDRESS_CHECK_MS = 1_000;
    static final int CONNECT_TIMEOUT_MS = 3_000;
    private static final int LENGTH_BYTES = 4;

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final IntFunction<InetSocketAddress> peerAddresses;
    private final boolean epoll;
    private final ConcurrentHashMap<Integer, Peer> peers = new ConcurrentHashMap<>();
    private final AtomicLong framesDropped = new AtomicLong();
    /** A peer that keeps failing its handshake retries every {@link #RECONNECT_MS}: one warning per interval. */
    private final WarningLimiter tlsFailures;
    /** Mutual TLS on every connection, or null for plaintext. */
    private final RaftFrameTls tls;

    /** One peer's outbound connection, or the attempt to make one. */
    private static final class Peer {
        volatile Channel channel;
        volatile long lastAttemptNs;
        volatile boolean connecting;
        volatile long lastAddressCheckNs;
    }

    private RaftFrameTransport(EventLoopGroup group, Channel serverChannel, IntFunction<InetSocketAddress> peers,
            boolean epoll, RaftFrameTls tls, WarningLimiter tlsFailures) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.peerAddresses = peers;
        this.epoll = epoll;
        this.tls = tls;
        this.tlsFailures = tlsFailures;
    }

    /**
     * Binds {@code bind} (port 0 picks one, {@link #port()} tells which) and hands every frame that arrives to
     * {@code inbound} (the engine's {@code deliver}), on a Netty thread. {@code peerAddresses} says where each peer's
     * Raft port is (null for a peer unknown so far: frames to it are dropped).
     */
    public static RaftFrameTransport start(InetSocketAddress bind, IntFunction<InetSocketAddress> peerAddresses,
            Consumer<ByteBuffer> inbound, int ioThreads) throws InterruptedException {
        return start(bind, peerAddresses, inbound, ioThreads, null);
    }

    /**
     * As {@link #start(InetSocketAddress, IntFunction, Consumer, int)}, with mutual TLS on every connection, both
     * ways, when {@code tls} is not null: a peer without a certificate {@code tls} trusts delivers nothing.
     */
    public static RaftFrameTransport start(InetSocketAddress bind, IntFunction<InetSocketAddress> peerAddresses,
            Consumer<ByteBuffer> inbound, int ioThreads, RaftFrameTls tls) throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        WarningLimiter tlsFailures = new WarningLimiter(LOG, "failed TLS handshakes", System::nanoTime);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(ioThreads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        try {
            ServerBootstrap bootstrap = new ServerBootstrap().group(group)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            if (tls != null) {
                                channel.pipeline().addLast(tls.serverHandler(channel.alloc()));
                            }
                            channel.pipeline().addLast(new LengthFieldBasedFrameDecoder(
                                    FrameCodec.FRAME_BYTES_MAX + LENGTH_BYTES, 0, LENGTH_BYTES, 0, LENGTH_BYTES))
                                    .addLast(new InboundFrames(inbound, tlsFailures));
                        }
                    });
            Channel server = bootstrap.bind(bind).sync().channel();
            return new RaftFrameTransport(group, server, peerAddresses, epoll, tls, tlsFailures);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The port the server listens on. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Frames dropped so far: no connection to the peer yet, too much unsent to it, or a frame too long. */
    public long framesDropped() {
        return framesDropped.get();
    }

    @Override
    public void send(int peerId, ByteBuffer frame) {
        trySend(peerId, frame);
    }

    /**
     * Sends {@code frame} to {@code peerId} as {@link #send} does, and says whether it was handed to the peer's
     * connection: false when there is no connection yet (one is started, as by send), when too much is unsent to the
     * peer, or when the frame is longer than the peer's decoder takes ({@link FrameCodec#FRAME_BYTES_MAX}, which
     * would close the connection). True does not mean the peer received it. Never blocks. Other users of the engine's
     * connections (the leader RPC) use this to answer at once when a request could not even leave.
     */
    public boolean trySend(int peerId, ByteBuffer frame) {
        if (frame.remaining() > FrameCodec.FRAME_BYTES_MAX) {
            framesDropped.incrementAndGet();
            return false;
        }
        Peer peer = peers.computeIfAbsent(peerId, id -> new Peer());
        Channel channel = peer.channel;
        if (channel != null && channel.isActive() && movedAway(peerId, peer, channel)) {
            channel.close();
            channel = null;
        }
        if (channel == null || !channel.isActive()) {
            connect(peerId, peer);
            framesDropped.incrementAndGet();
            return false;
        }
        if (!channel.isWritable()) {
            // More than OUTBOUND_BYTES_MAX unsent to this peer (the connection's high water mark).
            framesDropped.incrementAndGet();
            return false;
        }
        ByteBuf framed = Unpooled.buffer(LENGTH_BYTES + frame.remaining());
        framed.writeInt(frame.remaining()).writeBytes(frame.duplicate());
        channel.writeAndFlush(framed, channel.voidPromise());
        return true;
    }

    /** Whether the peer is now somewhere else than {@code channel} leads (checked every {@link #ADDRESS_CHECK_MS}). */
    private boolean movedAway(int peerId, Peer peer, Channel channel) {
        long now = System.nanoTime();
        if (now - peer.lastAddressCheckNs < TimeUnit.MILLISECONDS.toNanos(ADDRESS_CHECK_MS)) {
            return false;
        }
        peer.lastAddressCheckNs = now;
        InetSocketAddress current = peerAddresses.apply(peerId);
        if (current == null || current.equals(channel.remoteAddress())) {
            return false;
        }
        LOG.info("replica {} is now at {}, not {}: reconnecting", peerId, current, channel.remoteAddress());
        return true;
    }

    private void connect(int peerId, Peer peer) {
        long now = System.nanoTime();
        if (peer.connecting || now - peer.lastAttemptNs < TimeUnit.MILLISECONDS.toNanos(RECONNECT_MS)) {
            return;
        }
        InetSocketAddress address = peerAddresses.apply(peerId);
        if (address == null) {
            return;
        }
        synchronized (peer) {
            if (peer.connecting) {
                return;
            }
            peer.connecting = true;
            peer.lastAttemptNs = now;
        }
        Bootstrap bootstrap = new Bootstrap().group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(OUTBOUND_BYTES_MAX / 2, OUTBOUND_BYTES_MAX))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            // Frames written before the handshake ends wait in the handler; a failed one closes.
                            channel.pipeline().addLast(tls.clientHandler(channel.alloc(), address));
                        }
                        // Outbound only: whatever the peer sends back on it is read and let go.
                        channel.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext context, ByteBuf message) {
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                                logFailure(tlsFailures, "the Raft connection to replica " + peerId + " at " + address,
                                        cause);
                                context.close();
                            }
                        });
                    }
                });
        ChannelFuture future = bootstrap.connect(address);
        future.addListener(done -> {
            peer.connecting = false;
            if (done.isSuccess()) {
                peer.channel = future.channel();
            } else {
                LOG.debug("no Raft connection to replica {} at {}: {}", peerId, address, done.cause().toString());
            }
        });
    }

    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly(CONNECT_TIMEOUT_MS);
        for (Peer peer : peers.values()) {
            Channel channel = peer.channel;
            if (channel != null) {
                channel.close();
            }
        }
        group.shutdownGracefully(0, CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS).awaitUninterruptibly(
                2L * CONNECT_TIMEOUT_MS);
    }

    /**
     * A failed TLS handshake (a peer without a certificate the other end trusts, or plaintext against TLS) is worth a
     * warning; a connection reset by a peer that went away is not.
     */
    private static void logFailure(WarningLimiter tlsFailures, String connection, Throwable cause) {
        if (cause instanceof io.netty.handler.codec.DecoderException
                && cause.getCause() instanceof javax.net.ssl.SSLException) {
            tlsFailures.warn(connection + " failed its TLS handshake: " + cause.getCause());
        } else {
            LOG.debug("{} failed: {}", connection, cause.toString());
        }
    }

    /** Hands each whole frame to the engine; a malformed one closes its connection. */
    private static final class InboundFrames extends SimpleChannelInboundHandler<ByteBuf> {
        private final Consumer<ByteBuffer> inbound;
        private final WarningLimiter tlsFailures;

        InboundFrames(Consumer<ByteBuffer> inbound, WarningLimiter tlsFailures) {
            this.inbound = inbound;
            this.tlsFailures = tlsFailures;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, ByteBuf frame) {
            ByteBuffer bytes = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(bytes);
            try {
                inbound.accept(bytes.flip());
            } catch (FrameFormatException e) {
                LOG.warn("closing the Raft connection from {}: {}", context.channel().remoteAddress(),
                        e.getMessage());
                context.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            logFailure(tlsFailures, "the Raft connection from " + context.channel().remoteAddress(), cause);
            context.close();
        }
    }
}
