package dev.cairn.broker.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Caps open client connections at {@code max.connections}: one over the cap is closed as soon as it opens. */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);
    /** At most one refusal is logged per this many, so a connection flood cannot flood the log too. */
    private static final int REFUSALS_PER_LOG_LINE = 1000;

    private final int connectionsMax;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    ConnectionLimiter(int connectionsMax) {
        this.connectionsMax = connectionsMax;
    }

    int openConnections() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > connectionsMax) {
            if (refused.getAndIncrement() % REFUSALS_PER_LOG_LINE == 0) {
                LOG.warn("refusing connection from {}: max.connections={} reached ({} refused so far)",
                        ctx.channel().remoteAddress(), connectionsMax, refused.get());
            }
            ctx.close();
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }
}
