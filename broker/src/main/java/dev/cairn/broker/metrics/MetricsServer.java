package dev.cairn.broker.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} in the Prometheus text format on its own port, with the JDK's HTTP server on one
 * thread (scrapes are rare and cheap). Any other path is 404, any other method 405.
 */
public final class MetricsServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    /** Connections waiting to be accepted before the OS refuses more. */
    private static final int BACKLOG_MAX = 16;
    /** How long close waits for a scrape in progress. */
    private static final int STOP_WAIT_SECONDS = 1;
    /** The longest {@link #close} takes. */
    public static final long CLOSE_MS_MAX = STOP_WAIT_SECONDS * 1_000L;
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Binds {@code host:port} ({@code port} 0 picks a free one) and starts serving {@code metrics}. */
    public static MetricsServer start(String host, int port, BrokerMetrics metrics) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), BACKLOG_MAX);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "cairn-metrics");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> respond(exchange, metrics));
        server.start();
        LOG.info("Prometheus metrics on http://{}:{}/metrics", host, server.getAddress().getPort());
        return new MetricsServer(server, executor);
    }

    private static void respond(HttpExchange exchange, BrokerMetrics metrics) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                send(exchange, 404, "not found; metrics are at /metrics\n");
            } else if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                send(exchange, 405, "only GET\n");
            } else {
                send(exchange, 200, metrics.scrape());
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(STOP_WAIT_SECONDS);
        executor.shutdownNow();
    }
}
