package dev.cairn.broker.net;

import dev.cairn.broker.api.AccessControl;
import dev.cairn.broker.api.ConnectionSession;
import dev.cairn.broker.config.KafkaListener;
import dev.cairn.broker.config.TlsSettings;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a listener asks of each connection: TLS (a context that follows its store files, or null for none), whether
 * clients must log in with SASL before anything but ApiVersions, the ACLs their requests are checked against, and how
 * a client certificate's subject becomes the principal's name ({@code ssl.principal.mapping.rules}; empty when no rule
 * matches).
 */
public record ListenerSecurity(TlsContextSource tls, boolean saslRequired, AccessControl access, String listenerName,
        Function<String, Optional<String>> certificatePrincipal) {

    /** Kafka's DEFAULT rule: the subject as it is. */
    public static final Function<String, Optional<String>> SUBJECT_AS_IT_IS = Optional::of;
    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(null, false, AccessControl.OPEN);

    /** Without ACLs. */
    public ListenerSecurity(TlsContextSource tls, boolean saslRequired) {
        this(tls, saslRequired, AccessControl.OPEN);
    }

    /** A listener whose name does not matter (a broker with one listener, tests). */
    public ListenerSecurity(TlsContextSource tls, boolean saslRequired, AccessControl access) {
        this(tls, saslRequired, access, null, SUBJECT_AS_IT_IS);
    }

    /**
     * The security of {@code listener}, its TLS context built from {@code tls} (ignored when it uses none), client
     * certificates named by {@code certificatePrincipal}.
     */
    public static ListenerSecurity of(KafkaListener listener, TlsSettings tls, AccessControl access,
            Function<String, Optional<String>> certificatePrincipal) {
        return new ListenerSecurity(listener.protocol().tls() ? TlsContextSource.of(tls) : null,
                listener.protocol().sasl(), access, listener.name(), certificatePrincipal);
    }

    ConnectionSession newSession(SocketAddress remote) {
        String host = remote instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : "*";
        return ConnectionSession.of(saslRequired, access, host, listenerName, certificatePrincipal);
    }

    @Override
    public String toString() {
        return (listenerName == null ? "" : listenerName + ": ") + (tls == null ? "no TLS" : tls.toString())
                + (saslRequired ? ", SASL login required" : "") + (access.enabled() ? ", ACLs checked" : "");
    }
}
