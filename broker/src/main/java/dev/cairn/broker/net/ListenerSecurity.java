package dev.cairn.broker.net;

import dev.cairn.broker.api.ConnectionSession;
import dev.cairn.broker.config.KafkaListener;
import dev.cairn.broker.config.TlsSettings;
import io.netty.handler.ssl.SslContext;

/**
 * What a listener asks of each connection: TLS (a context, or null for none) and whether clients must log in with
 * SASL before anything but ApiVersions.
 */
public record ListenerSecurity(SslContext tls, boolean saslRequired) {

    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(null, false);

    /** The security of {@code listener}, its TLS context built from {@code tls} (ignored when it uses none). */
    public static ListenerSecurity of(KafkaListener listener, TlsSettings tls) {
        return new ListenerSecurity(listener.protocol().tls() ? TlsContexts.server(tls) : null,
                listener.protocol().sasl());
    }

    ConnectionSession newSession() {
        return saslRequired ? ConnectionSession.saslRequired() : ConnectionSession.plaintext();
    }

    @Override
    public String toString() {
        return (tls == null ? "no TLS" : "TLS") + (saslRequired ? ", SASL login required" : "");
    }
}
