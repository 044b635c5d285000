package dev.cairn.broker.api;

import dev.cairn.broker.security.SaslFailure;
import dev.cairn.broker.security.SaslMechanismServer;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.SaslAuthenticateRequest;
import dev.cairn.protocol.message.SaslAuthenticateResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SaslAuthenticate (key 36): feeds one client token to the mechanism chosen by SaslHandshake and answers with the
 * server's token. When the mechanism completes, the connection's principal becomes {@code User:<name>} and every
 * API is open to it. A failure answers SASL_AUTHENTICATION_FAILED with a message that names no secret, and the
 * connection is closed at its next request, as Kafka does. With connections.max.reauth.ms set, a login lasts that
 * long (SessionLifetimeMs tells the client); the client re-authenticates on the same connection (KIP-368) as the
 * same user, or the connection is closed at its first request after the end.
 */
public final class SaslAuthenticateHandler implements RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(SaslAuthenticateHandler.class);

    private final long sessionLifetimeMs;
    private final java.util.function.LongSupplier nanoTime;
    private final java.util.function.LongSupplier wallClockMs;

    /** Sessions without an end (connections.max.reauth.ms=0, Kafka's default). */
    public SaslAuthenticateHandler() {
        this(0, System::nanoTime);
    }

    /**
     * @param sessionLifetimeMs connections.max.reauth.ms: a login lasts this long, and the client is told so
     *     (SessionLifetimeMs, v1+) so that it re-authenticates in time; 0 for no end
     */
    public SaslAuthenticateHandler(long sessionLifetimeMs, java.util.function.LongSupplier nanoTime) {
        this(sessionLifetimeMs, nanoTime, System::currentTimeMillis);
    }

    /**
     * @param wallClockMs the time credential expiries (an OAUTHBEARER token's exp) are compared with
     */
    public SaslAuthenticateHandler(long sessionLifetimeMs, java.util.function.LongSupplier nanoTime,
            java.util.function.LongSupplier wallClockMs) {
        this.sessionLifetimeMs = sessionLifetimeMs;
        this.nanoTime = nanoTime;
        this.wallClockMs = wallClockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        ConnectionSession session = context.session();
        SaslMechanismServer mechanism = session.mechanism();
        if (session.stage() != ConnectionSession.Stage.AUTHENTICATE || mechanism == null) {
            return answer(ErrorCode.ILLEGAL_SASL_STATE, "SaslAuthenticate is only valid after SaslHandshake, before "
                    + "the login completes", new byte[0], 0);
        }
        byte[] token = request.body().get(SaslAuthenticateRequest.AUTH_BYTES);
        try {
            byte[] reply = mechanism.evaluate(token);
            long lifetimeMs = 0;
            if (mechanism.isComplete()) {
                String user = mechanism.authenticatedUser();
                String previous = session.saslUser();
                if (previous != null && !previous.equals(user)) {
                    // KIP-368: a re-authentication may renew the session, not switch to another user.
                    session.failed();
                    return answer(ErrorCode.SASL_AUTHENTICATION_FAILED, "Cannot change principals during "
                            + "re-authentication from User:" + previous, new byte[0], 0);
                }
                lifetimeMs = sessionLifetimeMs;
                long credentialExpiresAtMs = mechanism.credentialExpiresAtMs();
                if (lifetimeMs > 0 && credentialExpiresAtMs != Long.MAX_VALUE) {
                    // KIP-368: with re-authentication on, a session ends when its credential (a token) does.
                    lifetimeMs = Math.max(1, Math.min(lifetimeMs, credentialExpiresAtMs - wallClockMs.getAsLong()));
                }
                session.authenticated(user, lifetimeMs > 0
                        ? nanoTime.getAsLong() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(lifetimeMs)
                        : Long.MAX_VALUE);
                LOG.debug("connection {} from {} authenticated as {} with {}", context.connectionId(),
                        context.clientAddress(), session.principal(), mechanism.mechanismName());
            }
            return answer(ErrorCode.NONE, null, reply, lifetimeMs);
        } catch (SaslFailure failure) {
            session.failed();
            LOG.info("connection {} from {}: SASL {} login failed: {}", context.connectionId(),
                    context.clientAddress(), mechanism.mechanismName(), failure.getMessage());
            return answer(ErrorCode.SASL_AUTHENTICATION_FAILED, failure.getMessage(), new byte[0], 0);
        }
    }

    private static CompletableFuture<Struct> answer(ErrorCode error, String message, byte[] token, long lifetimeMs) {
        return CompletableFuture.completedFuture(new Struct(SaslAuthenticateResponse.SCHEMA)
                .set(SaslAuthenticateResponse.ERROR_CODE, error.code())
                .set(SaslAuthenticateResponse.ERROR_MESSAGE, message)
                .set(SaslAuthenticateResponse.AUTH_BYTES, token)
                .set(SaslAuthenticateResponse.SESSION_LIFETIME_MS, lifetimeMs));
    }
}
