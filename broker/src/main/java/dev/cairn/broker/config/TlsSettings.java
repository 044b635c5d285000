package dev.cairn.broker.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A TLS listener's settings, checked at start: the keystore must exist and be of a known type; a client-auth mode
 * other than none needs something to trust. Passwords stay here and are never printed ({@link #toString()}).
 */
public record TlsSettings(String keystoreType, Path keystore, String keystorePassword, String keyPassword,
        String truststoreType, Path truststore, String truststorePassword, ClientAuth clientAuth,
        List<String> protocols, List<String> cipherSuites) {

    /** Kafka's ssl.client.auth values. */
    public enum ClientAuth {
        NONE, REQUESTED, REQUIRED
    }

    private static final List<String> STORE_TYPES = List.of("JKS", "PKCS12", "PEM");

    /** Reads and checks the TLS keys of {@code config}, for its first listener. */
    public static TlsSettings of(BrokerConfig config) {
        return of(config, config.kafkaListener());
    }

    /** Reads and checks the TLS keys of {@code config} (the same {@code ssl.*} keys serve every TLS listener). */
    public static TlsSettings of(BrokerConfig config, KafkaListener listener) {
        String keystoreType = storeType(config, SecurityKeys.SSL_KEYSTORE_TYPE);
        String keystore = config.text(SecurityKeys.SSL_KEYSTORE_LOCATION);
        if (keystore.isEmpty()) {
            throw new ConfigException("the listener " + listener + " uses TLS, so "
                    + "ssl.keystore.location must name the broker's keystore");
        }
        Path keystorePath = existing(SecurityKeys.SSL_KEYSTORE_LOCATION, keystore);
        String truststore = config.text(SecurityKeys.SSL_TRUSTSTORE_LOCATION);
        Path truststorePath = truststore.isEmpty() ? null : existing(SecurityKeys.SSL_TRUSTSTORE_LOCATION,
                truststore);
        ClientAuth clientAuth;
        try {
            clientAuth = ClientAuth.valueOf(config.text(SecurityKeys.SSL_CLIENT_AUTH).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("ssl.client.auth=" + config.text(SecurityKeys.SSL_CLIENT_AUTH)
                    + " is not one of none, requested, required");
        }
        return new TlsSettings(keystoreType, keystorePath, config.text(SecurityKeys.SSL_KEYSTORE_PASSWORD),
                config.text(SecurityKeys.SSL_KEY_PASSWORD), storeType(config, SecurityKeys.SSL_TRUSTSTORE_TYPE),
                truststorePath, config.text(SecurityKeys.SSL_TRUSTSTORE_PASSWORD), clientAuth,
                list(config.text(SecurityKeys.SSL_ENABLED_PROTOCOLS)),
                list(config.text(SecurityKeys.SSL_CIPHER_SUITES)));
    }

    private static String storeType(BrokerConfig config, ConfigKey<String> key) {
        String type = config.text(key).toUpperCase(Locale.ROOT);
        if (!STORE_TYPES.contains(type)) {
            throw new ConfigException(key.name() + "=" + config.text(key) + " is not one of " + STORE_TYPES);
        }
        return type;
    }

    private static Path existing(ConfigKey<String> key, String location) {
        Path path = Path.of(location);
        if (!Files.isReadable(path)) {
            throw new ConfigException(key.name() + "=" + location + " is not a readable file");
        }
        return path;
    }

    private static List<String> list(String text) {
        return text.isBlank() ? List.of() : List.of(text.trim().split("\\s*,\\s*"));
    }

    @Override
    public String toString() {
        return "TlsSettings[keystore=" + keystoreType + ":" + keystore + ", truststore=" + truststoreType + ":"
                + truststore + ", clientAuth=" + clientAuth + ", protocols=" + protocols + "]";
    }
}
