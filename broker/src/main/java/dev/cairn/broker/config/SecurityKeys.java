package dev.cairn.broker.config;

import static dev.cairn.broker.config.ConfigKey.passwordKey;
import static dev.cairn.broker.config.ConfigKey.stringKey;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The keys of the listener's security: Kafka's names and meanings. TLS keys matter on SSL and SASL_SSL listeners,
 * SASL keys on SASL_PLAINTEXT and SASL_SSL. PLAIN users come, as in Kafka, from the JAAS text of the listener, in the
 * key {@code listener.name.<listener name, lower case>.plain.sasl.jaas.config}. As in Kafka, a listener may set its own
 * value of any key in {@link #PER_LISTENER} as {@code listener.name.<listener name, lower case>.<key>}, which then
 * replaces the broker-wide key on that listener only (an internal listener with mutual TLS beside an external one
 * without, each with its own keystore or SASL mechanisms).
 */
public final class SecurityKeys {
    public static final ConfigKey<String> LISTENER_SECURITY_PROTOCOL_MAP = stringKey(
            "listener.security.protocol.map", KafkaListener.PROTOCOL_MAP_DEFAULT,
            "Listener name to security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL), NAME:PROTOCOL,...");
    public static final ConfigKey<String> SSL_KEYSTORE_TYPE = stringKey("ssl.keystore.type", "JKS",
            "Format of ssl.keystore.location: JKS, PKCS12, or PEM (a file with the private key and its certificate "
            + "chain).");
    public static final ConfigKey<String> SSL_KEYSTORE_LOCATION = stringKey("ssl.keystore.location", "",
            "The broker's key and certificate, required on a TLS listener.");
    public static final ConfigKey<String> SSL_KEYSTORE_PASSWORD = passwordKey("ssl.keystore.password",
            "Password of the keystore (JKS, PKCS12).");
    public static final ConfigKey<String> SSL_KEY_PASSWORD = passwordKey("ssl.key.password",
            "Password of the private key, when it differs from the keystore's (or of an encrypted PEM key).");
    public static final ConfigKey<String> SSL_TRUSTSTORE_TYPE = stringKey("ssl.truststore.type", "JKS",
            "Format of ssl.truststore.location: JKS, PKCS12, or PEM (certificates).");
    public static final ConfigKey<String> SSL_TRUSTSTORE_LOCATION = stringKey("ssl.truststore.location", "",
            "Certificates trusted to sign client certificates (ssl.client.auth); empty means the JDK's.");
    public static final ConfigKey<String> SSL_TRUSTSTORE_PASSWORD = passwordKey("ssl.truststore.password",
            "Password of the truststore (JKS, PKCS12).");
    public static final ConfigKey<String> SSL_CLIENT_AUTH = stringKey("ssl.client.auth", "none",
            "required: clients must present a certificate the truststore trusts (mutual TLS; the principal is the "
            + "certificate's subject); requested: checked when presented; none.");
    public static final ConfigKey<String> SSL_ENABLED_PROTOCOLS = stringKey("ssl.enabled.protocols",
            "TLSv1.2,TLSv1.3", "TLS versions accepted.");
    public static final ConfigKey<String> SSL_CIPHER_SUITES = stringKey("ssl.cipher.suites", "",
            "Cipher suites accepted; empty means the JDK's defaults.");
    public static final ConfigKey<String> SSL_ENGINE = stringKey("ssl.engine", "auto",
            "Cairn's own key: the TLS implementation of a listener. auto: OpenSSL (BoringSSL, from netty-tcnative) "
            + "where its native library loads on this platform, else the JDK's; openssl: OpenSSL or the broker does "
            + "not start; jdk: the JDK's. Kafka has no such key (it always uses the JDK's engine).");
    public static final ConfigKey<Long> SSL_RELOAD_CHECK_INTERVAL_MS = ConfigKey.longKey(
            "ssl.reload.check.interval.ms", 60_000, 0, 86_400_000L, "Cairn's own key: how often the broker looks "
            + "at each TLS listener's keystore and truststore files and, when one changed, serves the renewed "
            + "certificate to new connections (open connections keep theirs; a file that cannot be used yet keeps "
            + "the previous one). 0: never, a renewed certificate then takes a restart. Kafka reloads on kafka-configs "
            + "--alter instead.");
    public static final ConfigKey<String> SSL_PRINCIPAL_MAPPING_RULES = stringKey("ssl.principal.mapping.rules",
            "DEFAULT", "How a client certificate's subject becomes the principal's name: RULE:pattern/replacement/[LU] "
            + "rules and DEFAULT (the subject as it is), comma-separated, first match wins; no match refuses the "
            + "client (Kafka's syntax).");
    public static final ConfigKey<String> SASL_ENABLED_MECHANISMS = stringKey("sasl.enabled.mechanisms",
            "SCRAM-SHA-256,SCRAM-SHA-512", "SASL mechanisms offered on a SASL listener: PLAIN, SCRAM-SHA-256, "
            + "SCRAM-SHA-512, OAUTHBEARER (signed JWTs, see sasl.oauthbearer.*; Kafka's default GSSAPI is not "
            + "served).");

    public static final ConfigKey<String> SASL_OAUTHBEARER_JWKS_ENDPOINT_URL = stringKey(
            "sasl.oauthbearer.jwks.endpoint.url", "", "OAUTHBEARER: the identity provider's JSON Web Key Set, a "
            + "file:, http: or https: URL; tokens must be JWTs signed by one of its keys (RS256/384/512, "
            + "PS256/384/512, ES256/384/512).");
    public static final ConfigKey<Long> SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS = ConfigKey.longKey(
            "sasl.oauthbearer.jwks.endpoint.refresh.ms", 3_600_000L, 10_000, 86_400_000L,
            "OAUTHBEARER: how often the key set is read again (rotated keys).");
    public static final ConfigKey<String> SASL_OAUTHBEARER_EXPECTED_AUDIENCE = stringKey(
            "sasl.oauthbearer.expected.audience", "", "OAUTHBEARER: audiences, of which a token's aud must name one; "
            + "empty for any.");
    public static final ConfigKey<String> SASL_OAUTHBEARER_EXPECTED_ISSUER = stringKey(
            "sasl.oauthbearer.expected.issuer", "", "OAUTHBEARER: the iss a token must carry; empty for any.");
    public static final ConfigKey<String> SASL_OAUTHBEARER_SUB_CLAIM_NAME = stringKey(
            "sasl.oauthbearer.sub.claim.name", "sub", "OAUTHBEARER: the claim naming the principal (User:<value>).");
    public static final ConfigKey<Long> SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS = ConfigKey.longKey(
            "sasl.oauthbearer.clock.skew.seconds", 30, 0, 3600, "OAUTHBEARER: clock difference tolerated in exp, nbf "
            + "and iat.");

    public static final ConfigKey<String> AUTHORIZER_CLASS_NAME = stringKey("authorizer.class.name", "",
            "Empty: no ACLs, every client may do everything. org.apache.kafka.metadata.authorizer.StandardAuthorizer "
            + "(Kafka's name): ACLs are checked on every request, kept in the metadata group, managed with "
            + "kafka-acls.");
    public static final ConfigKey<String> SUPER_USERS = stringKey("super.users", "",
            "Principals allowed everything whatever the ACLs, User:NAME;User:OTHER (Kafka's syntax).");
    public static final ConfigKey<Boolean> ALLOW_EVERYONE_IF_NO_ACL_FOUND = ConfigKey.boolKey(
            "allow.everyone.if.no.acl.found", false, "With ACLs on: whether a resource no ACL names is open to all.");

    public static final ConfigKey<Long> CONNECTIONS_MAX_REAUTH_MS = ConfigKey.longKey("connections.max.reauth.ms", 0,
            0, Limits.CONNECTIONS_MAX_REAUTH_MS_MAX, "How long a SASL login lasts: clients re-authenticate on the "
            + "same connection before then (KIP-368), or the connection is closed. 0: for the life of the connection.");

    public static final List<ConfigKey<?>> KEYS = List.of(LISTENER_SECURITY_PROTOCOL_MAP, SSL_KEYSTORE_TYPE,
            SSL_KEYSTORE_LOCATION, SSL_KEYSTORE_PASSWORD, SSL_KEY_PASSWORD, SSL_TRUSTSTORE_TYPE,
            SSL_TRUSTSTORE_LOCATION, SSL_TRUSTSTORE_PASSWORD, SSL_CLIENT_AUTH, SSL_ENABLED_PROTOCOLS,
            SSL_CIPHER_SUITES, SSL_ENGINE, SSL_RELOAD_CHECK_INTERVAL_MS, SSL_PRINCIPAL_MAPPING_RULES,
            SASL_ENABLED_MECHANISMS, SASL_OAUTHBEARER_JWKS_ENDPOINT_URL,
            SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS, SASL_OAUTHBEARER_EXPECTED_AUDIENCE,
            SASL_OAUTHBEARER_EXPECTED_ISSUER, SASL_OAUTHBEARER_SUB_CLAIM_NAME, SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS,
            AUTHORIZER_CLASS_NAME, SUPER_USERS,
            ALLOW_EVERYONE_IF_NO_ACL_FOUND, CONNECTIONS_MAX_REAUTH_MS);

    /** The keys a listener may override for itself ({@link #listenerKey}). */
    public static final List<ConfigKey<String>> PER_LISTENER = List.of(SSL_KEYSTORE_TYPE, SSL_KEYSTORE_LOCATION,
            SSL_KEYSTORE_PASSWORD, SSL_KEY_PASSWORD, SSL_TRUSTSTORE_TYPE, SSL_TRUSTSTORE_LOCATION,
            SSL_TRUSTSTORE_PASSWORD, SSL_CLIENT_AUTH, SSL_ENABLED_PROTOCOLS, SSL_CIPHER_SUITES, SSL_ENGINE,
            SSL_PRINCIPAL_MAPPING_RULES, SASL_ENABLED_MECHANISMS);

    private static final String LISTENER_PREFIX = "listener.name.";

    private static final Pattern JAAS_KEY = Pattern.compile("listener\\.name\\.[a-z0-9_.-]+\\.[a-z0-9-]+\\.sasl\\"
            + ".jaas\\.config");

    private SecurityKeys() {
    }

    /** Kafka's OAUTHBEARER JWT validator, which a listener names to validate tokens against a key set. */
    public static final String OAUTHBEARER_VALIDATOR_CLASS =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    private static final Pattern OAUTHBEARER_HANDLER_KEY = Pattern.compile("listener\\.name\\.[a-z0-9_-]+\\."
            + "oauthbearer\\.sasl\\.server\\.callback\\.handler\\.class");

    /**
     * Whether {@code key} is Kafka's {@code listener.name.<name>.oauthbearer.sasl.server.callback.handler.class}:
     * accepted so that Kafka's OAUTHBEARER settings carry over, with {@link #OAUTHBEARER_VALIDATOR_CLASS} as the only
     * value (it is what Cairn does); Kafka's unsecured validator is refused.
     */
    public static boolean isOAuthBearerHandlerKey(String key) {
        return OAUTHBEARER_HANDLER_KEY.matcher(key).matches();
    }

    /** Whether {@code key} is a per-listener, per-mechanism JAAS key (its value holds passwords). */
    public static boolean isJaasKey(String key) {
        return JAAS_KEY.matcher(key).matches();
    }

    /** The name of {@code key}'s override for one listener, as Kafka names it. */
    public static String listenerKey(String listenerName, ConfigKey<?> key) {
        return LISTENER_PREFIX + listenerName.toLowerCase(Locale.ROOT) + "." + key.name();
    }

    /**
     * The listener (lower case) that {@code key} overrides a {@link #PER_LISTENER} key for, or null when {@code key}
     * is not such an override.
     */
    public static String overriddenListener(String key) {
        if (!key.startsWith(LISTENER_PREFIX)) {
            return null;
        }
        for (ConfigKey<String> overridable : PER_LISTENER) {
            String suffix = "." + overridable.name();
            if (key.endsWith(suffix) && key.length() > LISTENER_PREFIX.length() + suffix.length()) {
                String listener = key.substring(LISTENER_PREFIX.length(), key.length() - suffix.length());
                return listener.contains(".") ? null : listener;
            }
        }
        return null;
    }

    /** The JAAS key of a listener and mechanism, as Kafka names it. */
    public static String jaasKey(String listenerName, String mechanism) {
        return "listener.name." + listenerName.toLowerCase(Locale.ROOT) + "." + mechanism.toLowerCase(Locale.ROOT)
                + ".sasl.jaas.config";
    }
}
