package dev.cairn.broker.metrics;

import dev.cairn.broker.api.RequestContext;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.schema.Struct;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Counts and times every request by API ({@code cairn_requests_total{api="Produce"}},
 * {@code cairn_request_latency_seconds{api="Produce"}}): latency runs from the decoded request to its response
 * body being ready (long-polling fetches included), before encoding. Meters exist from start for every API, so
 * a scrape shows zeros rather than missing series. A request slower than {@link SlowRequestLog#SLOW_MS} is logged.
 */
public final class MeteredRequestHandler implements RequestHandler {
    private final RequestHandler delegate;
    private final Map<ApiKey, Counter> requests = new EnumMap<>(ApiKey.class);
    private final ResponseMeters responses;
    private final Map<ApiKey, Timer> latencies = new EnumMap<>(ApiKey.class);
    private final SlowRequestLog slowRequests = new SlowRequestLog();

    public MeteredRequestHandler(RequestHandler delegate, BrokerMetrics metrics) {
        this.delegate = delegate;
        this.responses = new ResponseMeters(metrics.registry());
        for (ApiKey api : ApiKey.values()) {
            requests.put(api, Counter.builder("cairn.requests").description("Requests received, by API")
                    .tag("api", api.apiName()).register(metrics.registry()));
            latencies.put(api, Timer.builder("cairn.request.latency")
                    .description("Time from a decoded request to its response, by API")
                    .tag("api", api.apiName()).register(metrics.registry()));
        }
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        ApiKey api = request.apiKey();
        requests.get(api).increment();
        long startNs = System.nanoTime();
        Timer latency = latencies.get(api);
        CompletableFuture<Struct> response = delegate.handle(context, request);
        response.whenComplete((body, error) -> {
            long elapsedNs = System.nanoTime() - startNs;
            latency.record(elapsedNs, TimeUnit.NANOSECONDS);
            slowRequests.record(context, request, elapsedNs);
            if (error == null) {
                responses.record(api, request.body(), body);
            }
        });
        return response;
    }
}
