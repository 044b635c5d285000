package dev.cairn.broker.api;

import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.SaslHandshakeRequest;
import dev.cairn.protocol.message.SaslHandshakeResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * SaslHandshake v1 (key 17): the client names a mechanism; the answer lists the enabled ones. An unknown mechanism
 * gets UNSUPPORTED_SASL_MECHANISM and the connection is closed at its next request, as in Kafka. A logged-in
 * connection may send it again to re-authenticate (KIP-368, when connections.max.reauth.ms gives sessions a
 * lifetime); on a listener without SASL, or in the middle of a login, the answer is ILLEGAL_SASL_STATE.
 */
public final class SaslHandshakeHandler implements RequestHandler {
    private final java.util.function.Function<String, SaslMechanisms> byListener;

    /** The same mechanisms on every listener. */
    public SaslHandshakeHandler(SaslMechanisms mechanisms) {
        this(listener -> mechanisms);
    }

    /** @param byListener the mechanisms of each listener, by its name (the connection's listener name) */
    public SaslHandshakeHandler(java.util.function.Function<String, SaslMechanisms> byListener) {
        this.byListener = byListener;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        ConnectionSession session = context.session();
        if (!session.mayStartSasl()) {
            return answer(ErrorCode.ILLEGAL_SASL_STATE, byListener.apply(session.listenerName()));
        }
        SaslMechanisms mechanisms = byListener.apply(session.listenerName());
        String mechanism = request.body().get(SaslHandshakeRequest.MECHANISM);
        Optional<dev.cairn.broker.security.SaslMechanismServer> exchange = mechanisms.start(mechanism);
        if (exchange.isEmpty()) {
            session.failed();
            return answer(ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms);
        }
        session.startSasl(exchange.get());
        return answer(ErrorCode.NONE, mechanisms);
    }

    private static CompletableFuture<Struct> answer(ErrorCode error, SaslMechanisms mechanisms) {
        return CompletableFuture.completedFuture(new Struct(SaslHandshakeResponse.SCHEMA)
                .set(SaslHandshakeResponse.ERROR_CODE, error.code())
                .set(SaslHandshakeResponse.MECHANISMS, List.copyOf(mechanisms.enabled())));
    }
}
