package dev.cairn.broker.config;

import java.util.Locale;

/** Kafka's security protocols for a listener: whether the connection is encrypted and whether clients log in. */
public enum SecurityProtocol {
    PLAINTEXT(false, false),
    SSL(true, false),
    SASL_PLAINTEXT(false, true),
    SASL_SSL(true, true);

    private final boolean tls;
    private final boolean sasl;

    SecurityProtocol(boolean tls, boolean sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    /** Whether connections are TLS. */
    public boolean tls() {
        return tls;
    }

    /** Whether a client must authenticate with SASL before any request but ApiVersions and the SASL ones. */
    public boolean sasl() {
        return sasl;
    }

    public static SecurityProtocol parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("unknown security protocol " + text + "; known: PLAINTEXT, SSL, "
                    + "SASL_PLAINTEXT, SASL_SSL");
        }
    }
}
