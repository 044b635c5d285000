package dev.cairn.broker.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A TLS listener's settings, checked at start: the keystore must exist and be of a known type; a client-auth mode
 * other than none needs something to trust. Each value is the listener's own ({@code listener.name.<name>.ssl.*})
 * when set, else the broker-wide {@code ssl.*} key. Passwords stay here and are never printed ({@link #toString()}).
 */
public record TlsSettings(String keystoreType, Path keystore, String keystorePassword, String keyPassword,
        String truststoreType, Path truststore, String truststorePassword, ClientAuth clientAuth,
        List<String> protocols, List<String> cipherSuites, Engine engine) {

    /** Kafka's ssl.client.auth values. */
    public enum ClientAuth {
        NONE, REQUESTED, REQUIRED
    }

    /** ssl.engine: which TLS implementation a listener runs on. */
    public enum Engine {
        /** OpenSSL where it loads, else the JDK's. */
        AUTO,
        /** OpenSSL (BoringSSL from netty-tcnative), required. */
        OPENSSL,
        /** The JDK's TLS engine. */
        JDK
    }

    private static final List<String> STORE_TYPES = List.of("JKS", "PKCS12", "PEM");

    /** Reads and checks the TLS keys of {@code config}, for its first listener. */
    public static TlsSettings of(BrokerConfig config) {
        return of(config, config.kafkaListener());
    }

    /** Reads and checks the TLS keys of {@code config} for {@code listener}, its own overrides first. */
    public static TlsSettings of(BrokerConfig config, KafkaListener listener) {
        String keystoreType = storeType(config, listener, SecurityKeys.SSL_KEYSTORE_TYPE);
        String keystore = config.text(SecurityKeys.SSL_KEYSTORE_LOCATION, listener);
        if (keystore.isEmpty()) {
            throw new ConfigException("the listener " + listener + " uses TLS, so ssl.keystore.location (or "
                    + SecurityKeys.listenerKey(listener.name(), SecurityKeys.SSL_KEYSTORE_LOCATION)
                    + ") must name the broker's keystore");
        }
        Path keystorePath = existing(config, listener, SecurityKeys.SSL_KEYSTORE_LOCATION);
        String truststore = config.text(SecurityKeys.SSL_TRUSTSTORE_LOCATION, listener);
        Path truststorePath = truststore.isEmpty() ? null
                : existing(config, listener, SecurityKeys.SSL_TRUSTSTORE_LOCATION);
        String clientAuthText = config.text(SecurityKeys.SSL_CLIENT_AUTH, listener);
        ClientAuth clientAuth;
        try {
            clientAuth = ClientAuth.valueOf(clientAuthText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(config.keyName(SecurityKeys.SSL_CLIENT_AUTH, listener) + "=" + clientAuthText
                    + " is not one of none, requested, required");
        }
        String engineText = config.text(SecurityKeys.SSL_ENGINE, listener);
        Engine engine;
        try {
            engine = Engine.valueOf(engineText.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(config.keyName(SecurityKeys.SSL_ENGINE, listener) + "=" + engineText
                    + " is not one of auto, openssl, jdk");
        }
        return new TlsSettings(keystoreType, keystorePath, config.text(SecurityKeys.SSL_KEYSTORE_PASSWORD, listener),
                config.text(SecurityKeys.SSL_KEY_PASSWORD, listener),
                storeType(config, listener, SecurityKeys.SSL_TRUSTSTORE_TYPE), truststorePath,
                config.text(SecurityKeys.SSL_TRUSTSTORE_PASSWORD, listener), clientAuth,
                list(config.text(SecurityKeys.SSL_ENABLED_PROTOCOLS, listener)),
                list(config.text(SecurityKeys.SSL_CIPHER_SUITES, listener)), engine);
    }

    private static String storeType(BrokerConfig config, KafkaListener listener, ConfigKey<String> key) {
        String text = config.text(key, listener);
        String type = text.toUpperCase(Locale.ROOT);
        if (!STORE_TYPES.contains(type)) {
            throw new ConfigException(config.keyName(key, listener) + "=" + text + " is not one of " + STORE_TYPES);
        }
        return type;
    }

    private static Path existing(BrokerConfig config, KafkaListener listener, ConfigKey<String> key) {
        String location = config.text(key, listener);
        Path path = Path.of(location);
        if (!Files.isReadable(path)) {
            throw new ConfigException(config.keyName(key, listener) + "=" + location + " is not a readable file");
        }
        return path;
    }

    private static List<String> list(String text) {
        return text.isBlank() ? List.of() : List.of(text.trim().split("\\s*,\\s*"));
    }

    @Override
    public String toString() {
        return "TlsSettings[keystore=" + keystoreType + ":" + keystore + ", truststore=" + truststoreType + ":"
                + truststore + ", clientAuth=" + clientAuth + ", protocols=" + protocols + ", engine=" + engine + "]";
    }
}
