package dev.cairn.broker.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Raft port's TLS settings (raft.ssl.*), checked at start: both stores must be named, readable, and of a known
 * type. TLS on the Raft port is always mutual, so the truststore is required: the JDK's public CAs would let anyone
 * with a web certificate in. Passwords stay here and are never printed ({@link #toString()}).
 */
public record RaftTlsSettings(String keystoreType, Path keystore, String keystorePassword, String keyPassword,
        String truststoreType, Path truststore, String truststorePassword) {

    private static final List<String> STORE_TYPES = List.of("PKCS12", "JKS", "PEM");

    /** Reads and checks the raft.ssl.* keys of {@code config}; empty when raft.ssl.enabled is false. */
    public static Optional<RaftTlsSettings> of(BrokerConfig config) {
        if (!RaftTlsKeys.RAFT_SSL_ENABLED.parse(config.text(RaftTlsKeys.RAFT_SSL_ENABLED))) {
            return Optional.empty();
        }
        return Optional.of(new RaftTlsSettings(storeType(config, RaftTlsKeys.RAFT_SSL_KEYSTORE_TYPE),
                required(config, RaftTlsKeys.RAFT_SSL_KEYSTORE_LOCATION, "this broker's key and certificate"),
                config.text(RaftTlsKeys.RAFT_SSL_KEYSTORE_PASSWORD), config.text(RaftTlsKeys.RAFT_SSL_KEY_PASSWORD),
                storeType(config, RaftTlsKeys.RAFT_SSL_TRUSTSTORE_TYPE),
                required(config, RaftTlsKeys.RAFT_SSL_TRUSTSTORE_LOCATION, "the CA that signs broker certificates"),
                config.text(RaftTlsKeys.RAFT_SSL_TRUSTSTORE_PASSWORD)));
    }

    /** The private key's password: raft.ssl.key.password, or the keystore's when that is empty. */
    public String effectiveKeyPassword() {
        return keyPassword.isEmpty() ? keystorePassword : keyPassword;
    }

    private static String storeType(BrokerConfig config, ConfigKey<String> key) {
        String type = config.text(key).toUpperCase(Locale.ROOT);
        if (!STORE_TYPES.contains(type)) {
            throw new ConfigException(key.name() + "=" + config.text(key) + " is not one of " + STORE_TYPES);
        }
        return type;
    }

    private static Path required(BrokerConfig config, ConfigKey<String> key, String what) {
        String location = config.text(key);
        if (location.isEmpty()) {
            throw new ConfigException("raft.ssl.enabled=true, so " + key.name() + " must name " + what
                    + " (Raft TLS is always mutual)");
        }
        Path path = Path.of(location);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new ConfigException(key.name() + "=" + location + " is not a readable file");
        }
        return path;
    }

    @Override
    public String toString() {
        return "RaftTlsSettings[keystore=" + keystoreType + ":" + keystore + ", truststore=" + truststoreType + ":"
                + truststore + "]";
    }
}
