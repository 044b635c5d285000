package dev.cairn.broker.config;

import java.util.List;
import java.util.Locale;

/**
 * A SASL listener's settings, checked at start: the mechanisms offered, and for PLAIN the listener's JAAS text that
 * lists the users ({@code user_<name>="<password>"}, as in Kafka). SCRAM credentials are not configuration: they are
 * kept in the metadata group and managed with AlterUserScramCredentials ({@code kafka-configs --alter
 * --add-config SCRAM-SHA-512=[password=...] --entity-type users --entity-name NAME}).
 */
public record SaslSettings(List<String> mechanisms, String plainJaasConfig) {

    /** The mechanisms Cairn serves. */
    public static final List<String> SUPPORTED = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    /** The SASL settings of the first listener. */
    public static SaslSettings of(BrokerConfig config) {
        return of(config, config.kafkaListener());
    }

    /**
     * The SASL settings of {@code listener}: its mechanisms ({@code listener.name.<name>.sasl.enabled.mechanisms}, else
     * the broker's), and its own PLAIN users.
     */
    public static SaslSettings of(BrokerConfig config, KafkaListener listener) {
        String text = config.text(SecurityKeys.SASL_ENABLED_MECHANISMS, listener);
        String key = config.keyName(SecurityKeys.SASL_ENABLED_MECHANISMS, listener);
        List<String> mechanisms = text.isBlank() ? List.of()
                : List.of(text.trim().toUpperCase(Locale.ROOT).split("\\s*,\\s*"));
        if (mechanisms.isEmpty()) {
            throw new ConfigException(key + " is empty, so no client could log in to the SASL listener " + listener);
        }
        for (String mechanism : mechanisms) {
            if (!SUPPORTED.contains(mechanism)) {
                throw new ConfigException(key + " names " + mechanism + "; Cairn serves " + SUPPORTED);
            }
        }
        String jaasKey = SecurityKeys.jaasKey(listener.name(), "PLAIN");
        String jaas = config.extraText(jaasKey);
        if (mechanisms.contains("PLAIN") && (jaas == null || jaas.isBlank())) {
            throw new ConfigException(key + " includes PLAIN, so " + jaasKey + " must list the "
                    + "users (org.apache.kafka.common.security.plain.PlainLoginModule required user_NAME=\"...\";)");
        }
        if (mechanisms.contains("OAUTHBEARER")) {
            String url = config.text(SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL);
            if (url.isEmpty()) {
                throw new ConfigException(key + " includes OAUTHBEARER, so "
                        + SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL.name() + " must name the identity "
                        + "provider's key set (Cairn accepts signed JWTs only, not Kafka's unsecured tokens)");
            }
            String scheme = url.contains(":") ? url.substring(0, url.indexOf(':')).toLowerCase(Locale.ROOT) : "";
            if (!List.of("file", "http", "https").contains(scheme)) {
                throw new ConfigException(SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL.name() + "=" + url
                        + " is not a file:, http: or https: URL");
            }
        }
        return new SaslSettings(mechanisms, jaas);
    }

    @Override
    public String toString() {
        return "SaslSettings[mechanisms=" + mechanisms + "]";
    }
}
