package dev.cairn.broker.net;

import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.TlsSettings;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds the listener's TLS context from Kafka's ssl.* settings: JKS and PKCS12 keystores through the JDK's key
 * managers, PEM files (private key and certificate chain in one file) through Netty's reader. The engine is
 * OpenSSL (BoringSSL from netty-tcnative, statically linked, shipped for Linux, macOS and Windows on x86-64 and
 * Linux and macOS on ARM) where its native library loads, unless {@code ssl.engine=jdk}: it encrypts with less CPU
 * than the JDK's engine. Under either engine a TLS fetch reads the records into memory to encrypt them, so the
 * zero-copy (sendfile) path is for plaintext listeners only, as in Kafka.
 */
final class TlsContexts {
    private TlsContexts() {
    }

    /** Builds the server context, or throws {@link ConfigException} naming the setting that could not be used. */
    static SslContext server(TlsSettings tls) {
        try {
            SslContextBuilder builder;
            if (tls.keystoreType().equals("PEM")) {
                String keyPassword = tls.keyPassword().isEmpty() ? null : tls.keyPassword();
                try (InputStream chain = Files.newInputStream(tls.keystore());
                        InputStream key = Files.newInputStream(tls.keystore())) {
                    builder = SslContextBuilder.forServer(chain, key, keyPassword);
                }
            } else {
                KeyStore store = load(tls.keystoreType(), tls.keystore(), tls.keystorePassword());
                KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                String keyPassword = tls.keyPassword().isEmpty() ? tls.keystorePassword() : tls.keyPassword();
                keys.init(store, keyPassword.toCharArray());
                builder = SslContextBuilder.forServer(keys);
            }
            if (tls.truststore() != null) {
                if (tls.truststoreType().equals("PEM")) {
                    builder.trustManager(tls.truststore().toFile());
                } else {
                    TrustManagerFactory trust = TrustManagerFactory.getInstance(
                            TrustManagerFactory.getDefaultAlgorithm());
                    trust.init(load(tls.truststoreType(), tls.truststore(), tls.truststorePassword()));
                    builder.trustManager(trust);
                }
            }
            builder.sslProvider(provider(tls.engine()))
                    .clientAuth(switch (tls.clientAuth()) {
                        case NONE -> ClientAuth.NONE;
                        case REQUESTED -> ClientAuth.OPTIONAL;
                        case REQUIRED -> ClientAuth.REQUIRE;
                    })
                    .protocols(tls.protocols().isEmpty() ? null : tls.protocols())
                    .ciphers(tls.cipherSuites().isEmpty() ? null : tls.cipherSuites());
            return builder.build();
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            // The JDK's messages name the file or the algorithm, never a password.
            throw new ConfigException("cannot use the TLS settings " + tls + ": " + e.getMessage());
        }
    }

    /** The Netty provider for {@code engine}; {@code openssl} where OpenSSL cannot load is a configuration error. */
    static SslProvider provider(TlsSettings.Engine engine) {
        return switch (engine) {
            case JDK -> SslProvider.JDK;
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ConfigException("ssl.engine=openssl, but OpenSSL (netty-tcnative) does not load on this "
                            + "platform: " + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
        };
    }

    private static KeyStore load(String type, Path file, String password) throws IOException,
            GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.isEmpty() ? null : password.toCharArray());
        }
        return store;
    }

    /** Whether a pipeline exception came from TLS: a failed handshake, or plaintext sent to a TLS port. */
    static boolean isTlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException || t instanceof io.netty.handler.ssl.NotSslRecordException) {
                return true;
            }
        }
        return false;
    }
}
