package dev.cairn.broker.net;

import dev.cairn.broker.api.RequestContext;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.broker.config.Limits;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener: a Netty server (epoll where available) whose pipeline per connection is: connection cap,
 * idle timeout, frame decoder capped at {@code socket.request.max.bytes}, then {@link RequestChannelHandler}.
 */
public final class KafkaServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaServer.class);
    /** Kafka's connections.max.idle.ms default: an idle connection is closed after ten minutes. */
    public static final long CONNECTION_IDLE_MS_MAX = 10 * 60 * 1000L;
    /** How long close lets each event loop group run tasks already queued (Netty's graceful shutdown timeout). */
    private static final long EVENT_LOOPS_SHUTDOWN_MS_MAX = 2_000;
    /**
     * The longest {@link #close} takes: the listening sockets, then the worker and the boss event loops. Its waits
     * share this bound, so an event loop that a task blocks cannot hold the broker's close (the Raft side closes after
     * this one); such a loop is logged and left.
     */
    public static final long CLOSE_MS_MAX = 2 * EVENT_LOOPS_SHUTDOWN_MS_MAX + 1_000;

    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final ConnectionLimiter limiter;
    /** One server channel per listener, in the order the listeners were given. */
    private final List<Channel> serverChannels;
    private final String transport;
    private final NetworkTraffic traffic;
    private final RequestBytesBudget budget;

    private KafkaServer(EventLoopGroup boss, EventLoopGroup workers, ConnectionLimiter limiter, List<Channel> channels,
            String transport, NetworkTraffic traffic, RequestBytesBudget budget) {
        this.traffic = traffic;
        this.budget = budget;
        this.bossGroup = boss;
        this.workerGroup = workers;
        this.limiter = limiter;
        this.serverChannels = List.copyOf(channels);
        this.transport = transport;
    }

    /**
     * Binds and starts serving. {@code port} 0 picks a free port ({@link #port()} tells which).
     *
     * @param requestBytesMax the largest frame accepted; larger or negative sizes close the connection
     */
    public static KafkaServer start(String host, int port, RequestHandler handler, int requestBytesMax,
            int connectionsMax, int ioThreads) throws InterruptedException {
        return start(host, port, handler, requestBytesMax, connectionsMax, ioThreads, RequestBytesBudget.UNBOUNDED);
    }

    /**
     * As {@link #start(String, int, RequestHandler, int, int, int)}, with a broker-wide budget of request bytes read
     * and not yet answered ({@code queued.max.request.bytes}; -1 for none).
     */
    public static KafkaServer start(String host, int port, RequestHandler handler, int requestBytesMax,
            int connectionsMax, int ioThreads, long queuedRequestBytesMax) throws InterruptedException {
        return start(host, port, handler, requestBytesMax, connectionsMax, ioThreads, queuedRequestBytesMax,
                ListenerSecurity.PLAINTEXT);
    }

    /**
     * As {@link #start(String, int, RequestHandler, int, int, int, long)}, with the listener's security: TLS (the
     * handshake before the first frame; records are then copied through the heap, since file regions cannot be
     * encrypted in place) and whether clients must log in with SASL first.
     */
    public static KafkaServer start(String host, int port, RequestHandler handler, int requestBytesMax,
            int connectionsMax, int ioThreads, long queuedRequestBytesMax, ListenerSecurity security)
            throws InterruptedException {
        return start(List.of(new Endpoint(host, port, security)), handler, requestBytesMax, connectionsMax, ioThreads,
                queuedRequestBytesMax);
    }

    /** One listener: where it binds and what it asks of each connection. */
    public record Endpoint(String host, int port, ListenerSecurity security) {
    }

    /**
     * As {@link #start(String, int, RequestHandler, int, int, int, long, ListenerSecurity)}, for several listeners
     * (Kafka's {@code listeners} list). They share the network threads, the connection cap and the budget of
     * queued request bytes, as the listeners of one Kafka broker do.
     */
    public static KafkaServer start(List<Endpoint> endpoints, RequestHandler handler, int requestBytesMax,
            int connectionsMax, int ioThreads, long queuedRequestBytesMax) throws InterruptedException {
        if (requestBytesMax > Limits.REQUEST_BYTES_MAX) {
            throw new IllegalArgumentException("requestBytesMax " + requestBytesMax + " exceeds REQUEST_BYTES_MAX "
                    + Limits.REQUEST_BYTES_MAX);
        }
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(ioThreads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Class<? extends ServerChannel> channelClass = epoll ? EpollServerSocketChannel.class
                : NioServerSocketChannel.class;
        ConnectionLimiter limiter = new ConnectionLimiter(connectionsMax);
        AtomicLong connectionIds = new AtomicLong();
        NetworkTraffic traffic = new NetworkTraffic();
        RequestBytesBudget budget = new RequestBytesBudget(queuedRequestBytesMax);
        String transport = epoll ? "epoll" : "nio";
        List<Channel> channels = new java.util.ArrayList<>();
        try {
            for (Endpoint endpoint : endpoints) {
                ListenerSecurity security = endpoint.security();
                ServerBootstrap bootstrap = new ServerBootstrap()
                        .group(boss, workers)
                        .channel(channelClass)
                        .option(ChannelOption.SO_BACKLOG, 1024)
                        .option(ChannelOption.SO_REUSEADDR, true)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childOption(ChannelOption.SO_KEEPALIVE, true)
                        .childHandler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                initConnection(ch, security, handler, requestBytesMax, limiter,
                                        connectionIds.incrementAndGet(), traffic, budget);
                            }
                        });
                Channel channel = bootstrap.bind(endpoint.host(), endpoint.port()).sync().channel();
                channels.add(channel);
                LOG.info("Kafka listener on {} ({}, {})", channel.localAddress(), transport, security);
            }
            return new KafkaServer(boss, workers, limiter, channels, transport, traffic, budget);
        } catch (RuntimeException | InterruptedException e) {
            channels.forEach(channel -> channel.close().syncUninterruptibly());
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    private static void initConnection(SocketChannel ch, ListenerSecurity security, RequestHandler handler,
            int requestBytesMax, ConnectionLimiter limiter, long connectionId, NetworkTraffic traffic,
            RequestBytesBudget budget) {
        RequestContext context = new RequestContext(connectionId, String.valueOf(ch.remoteAddress()),
                security.newSession(ch.remoteAddress()));
        ch.pipeline()
                .addLast("limit", limiter)
                .addLast("idle", new IdleStateHandler(0, 0, CONNECTION_IDLE_MS_MAX, TimeUnit.MILLISECONDS) {
                    @Override
                    protected void channelIdle(io.netty.channel.ChannelHandlerContext ctx, IdleStateEvent event) {
                        ctx.close();
                    }
                });
        if (security.tls() != null) {
            SslHandler tls = security.tls().current().newHandler(ch.alloc());
            tls.setHandshakeTimeoutMillis(Limits.TLS_HANDSHAKE_TIMEOUT_MS);
            ch.pipeline().addLast("tls", tls);
        }
        ch.pipeline()
                .addLast("frame", new SessionAwareFrameDecoder(requestBytesMax, context.session()))
                .addLast("requests", new RequestChannelHandler(handler, context,
                        Limits.INFLIGHT_REQUESTS_PER_CONNECTION_MAX, traffic, budget, security.tls() != null));
    }

    /** The first listener's bound port. */
    public int port() {
        return port(0);
    }

    /** The bound port of the {@code index}th listener (useful when configured as 0). */
    public int port(int index) {
        return ((InetSocketAddress) serverChannels.get(index).localAddress()).getPort();
    }

    public String transport() {
        return transport;
    }

    public int openConnections() {
        return limiter.openConnections();
    }

    /** Bytes of requests read and not yet answered, over all connections. */
    public long queuedRequestBytes() {
        return budget.usedBytes();
    }

    /** Bytes of request frames received, size prefixes included, since start. */
    public long bytesIn() {
        return traffic.bytesIn();
    }

    /** Bytes of response frames encoded for sending, size prefixes included, since start. */
    public long bytesOut() {
        return traffic.bytesOut();
    }

    /** Stops listening, closes every connection (requests in flight get no answer) and ends the event loops. */
    @Override
    public void close() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_MS_MAX);
        serverChannels.forEach(channel -> channel.close().awaitUninterruptibly(remainingMs(deadline)));
        boolean ended = workerGroup.shutdownGracefully(0, EVENT_LOOPS_SHUTDOWN_MS_MAX, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(remainingMs(deadline));
        ended &= bossGroup.shutdownGracefully(0, EVENT_LOOPS_SHUTDOWN_MS_MAX, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(remainingMs(deadline));
        if (!ended) {
            LOG.warn("the Kafka listener's event loops had not ended after {} ms (a task blocks one); not waiting "
                    + "for them", CLOSE_MS_MAX);
        }
    }

    private static long remainingMs(long deadlineNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }
}
