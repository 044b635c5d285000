package dev.cairn.broker.raft;

import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.RaftTlsSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Ratis's gRPC TLS configuration from raft.ssl.*. The stores are read here, with the JDK, once at start, so that a
 * wrong password or a store without a key stops the start with a message naming the setting (never a password)
 * rather than failing every Raft connection later. PKCS12 and JKS go through {@link KeyStore}; a PEM keystore (a
 * PKCS#8 private key, encrypted or not, and its certificate chain) and a PEM truststore (certificates) are read into
 * in-memory stores. Ratis gets the resulting key and trust managers with mutual TLS on: its server requires a client
 * certificate the trust manager accepts, and its clients present the key manager's certificate and verify the
 * server's certificate and host name.
 */
public final class RaftTls {
    private static final Pattern PEM_BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    /** The in-memory store of a PEM key needs some password; it never leaves this class. */
    private static final char[] MEMORY_STORE_PASSWORD = "cairn-raft".toCharArray();

    private RaftTls() {
    }

    /** This broker's key and the certificates it trusts, as read from raft.ssl.* once at start. */
    public record Managers(KeyManagerFactory keys, TrustManagerFactory trust) {
    }

    /** Reads the stores of {@code settings}; throws {@link ConfigException} naming the setting that cannot be used. */
    static GrpcTlsConfig grpcConfig(RaftTlsSettings settings) {
        Managers managers = managers(settings);
        return new GrpcTlsConfig(managers.keys().getKeyManagers()[0], managers.trust().getTrustManagers()[0], true);
    }

    /**
     * Reads and checks the stores of {@code settings} (what {@link #grpcConfig} does, for other transports such as
     * the Cairn Raft engine's); throws {@link ConfigException} naming the setting that cannot be used.
     */
    public static Managers managers(RaftTlsSettings settings) {
        KeyManagerFactory keys;
        TrustManagerFactory trust;
        KeyStore store;
        try {
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        } catch (GeneralSecurityException e) {
            throw new ConfigException("the JDK offers no key or trust manager for Raft TLS: " + e.getMessage());
        }
        if (settings.keystoreType().equals("PEM")) {
            store = pemKeyStore(settings.keystore(), settings.keyPassword());
            initKeys(keys, store, MEMORY_STORE_PASSWORD, settings);
        } else {
            store = load("raft.ssl.keystore.location", settings.keystoreType(), settings.keystore(),
                    settings.keystorePassword());
            if (aliases(store, true).isEmpty()) {
                throw new ConfigException("raft.ssl.keystore.location=" + settings.keystore()
                        + " holds no private key (this broker's key and certificate)");
            }
            initKeys(keys, store, settings.effectiveKeyPassword().toCharArray(), settings);
        }
        KeyStore trusted = settings.truststoreType().equals("PEM") ? pemTrustStore(settings.truststore())
                : load("raft.ssl.truststore.location", settings.truststoreType(), settings.truststore(),
                        settings.truststorePassword());
        if (aliases(trusted, false).isEmpty()) {
            throw new ConfigException("raft.ssl.truststore.location=" + settings.truststore()
                    + " holds no trusted certificate");
        }
        try {
            trust.init(trusted);
        } catch (GeneralSecurityException e) {
            throw new ConfigException("raft.ssl.truststore.location=" + settings.truststore() + " cannot be used: "
                    + e.getMessage());
        }
        checkTrustsItself(store, (X509TrustManager) trust.getTrustManagers()[0], settings);
        return new Managers(keys, trust);
    }

    /**
     * Every broker's Raft client also talks to its own server, and its peers share its truststore: a certificate its
     * own truststore refuses as a client's or a server's (another CA, an extended key usage without clientAuth or
     * serverAuth, expired) would fail every Raft connection, so it stops the start instead.
     */
    private static void checkTrustsItself(KeyStore store, X509TrustManager trust, RaftTlsSettings settings) {
        String refusal = "its key has no X.509 certificate chain";
        for (String alias : aliases(store, true)) {
            try {
                Certificate[] certificates = store.getCertificateChain(alias);
                if (certificates == null || !Arrays.stream(certificates).allMatch(X509Certificate.class::isInstance)) {
                    continue;
                }
                X509Certificate[] chain = Arrays.copyOf(certificates, certificates.length, X509Certificate[].class);
                // "UNKNOWN": no key-exchange algorithm is known yet (as in a TLS 1.3 handshake).
                trust.checkClientTrusted(chain, "UNKNOWN");
                trust.checkServerTrusted(chain, "UNKNOWN");
                return;
            } catch (GeneralSecurityException e) {
                refusal = e.getMessage();
            }
        }
        throw new ConfigException("raft.ssl.truststore.location=" + settings.truststore() + " does not accept the "
                + "certificate in raft.ssl.keystore.location=" + settings.keystore() + " as a Raft peer's (its peers "
                + "would refuse it alike): " + refusal);
    }

    private static void initKeys(KeyManagerFactory keys, KeyStore store, char[] password, RaftTlsSettings settings) {
        try {
            keys.init(store, password);
        } catch (GeneralSecurityException e) {
            // UnrecoverableKeyException: the JDK's message names the failure, not the password.
            throw new ConfigException("raft.ssl.key.password (or raft.ssl.keystore.password when it is empty) does "
                    + "not open the private key in raft.ssl.keystore.location=" + settings.keystore() + ": "
                    + e.getMessage());
        }
    }

    private static KeyStore load(String key, String type, Path file, String password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password.isEmpty() ? null : password.toCharArray());
            return store;
        } catch (IOException | GeneralSecurityException e) {
            // "keystore password was incorrect", "Invalid keystore format": no password in the JDK's messages.
            throw new ConfigException(key + "=" + file + " cannot be read as " + type + ": " + e.getMessage());
        }
    }

    /** The aliases of key entries ({@code keyEntries}) or of trusted-certificate entries. */
    private static List<String> aliases(KeyStore store, boolean keyEntries) {
        try {
            List<String> found = new ArrayList<>();
            for (String alias : Collections.list(store.aliases())) {
                if (keyEntries ? store.isKeyEntry(alias) : store.isCertificateEntry(alias)) {
                    found.add(alias);
                }
            }
            return found;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a loaded key store refused to list its entries", e);
        }
    }

    private record PemBlock(String label, byte[] der) {
    }

    private static List<PemBlock> pemBlocks(String key, Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ConfigException(key + "=" + file + " cannot be read: " + e.getMessage());
        }
        List<PemBlock> blocks = new ArrayList<>();
        Matcher matcher = PEM_BLOCK.matcher(text);
        while (matcher.find()) {
            try {
                blocks.add(new PemBlock(matcher.group(1), Base64.getMimeDecoder().decode(matcher.group(2))));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key + "=" + file + " has a " + matcher.group(1) + " block that is not "
                        + "base64: " + e.getMessage());
            }
        }
        return blocks;
    }

    private static List<Certificate> certificates(String key, Path file, List<PemBlock> blocks) {
        List<Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (PemBlock block : blocks) {
                if (block.label().equals("CERTIFICATE")) {
                    certificates.add(factory.generateCertificate(new ByteArrayInputStream(block.der())));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new ConfigException(key + "=" + file + " holds a certificate that cannot be read: "
                    + e.getMessage());
        }
        if (certificates.isEmpty()) {
            throw new ConfigException(key + "=" + file + " holds no PEM certificate (BEGIN CERTIFICATE)");
        }
        return certificates;
    }

    /** A PEM file with one PKCS#8 private key and its certificate chain (this broker's first), as a key store. */
    private static KeyStore pemKeyStore(Path file, String keyPassword) {
        String key = "raft.ssl.keystore.location";
        List<PemBlock> blocks = pemBlocks(key, file);
        List<Certificate> chain = certificates(key, file, blocks);
        PemBlock keyBlock = null;
        for (PemBlock block : blocks) {
            if (block.label().endsWith("PRIVATE KEY")) {
                if (keyBlock != null) {
                    throw new ConfigException(key + "=" + file + " holds more than one private key");
                }
                keyBlock = block;
            }
        }
        if (keyBlock == null) {
            throw new ConfigException(key + "=" + file + " holds no PEM private key (BEGIN PRIVATE KEY)");
        }
        byte[] pkcs8;
        if (keyBlock.label().equals("PRIVATE KEY")) {
            pkcs8 = keyBlock.der();
        } else if (keyBlock.label().equals("ENCRYPTED PRIVATE KEY")) {
            if (keyPassword.isEmpty()) {
                throw new ConfigException(key + "=" + file + " holds an encrypted private key, and "
                        + "raft.ssl.key.password is empty");
            }
            pkcs8 = decrypt(file, keyBlock.der(), keyPassword);
        } else {
            throw new ConfigException(key + "=" + file + " holds a " + keyBlock.label() + ", which is not PKCS#8; "
                    + "convert it with: openssl pkcs8 -topk8 -in KEY -out KEY.pk8 (add -nocrypt for no password)");
        }
        try {
            String algorithm = chain.get(0).getPublicKey().getAlgorithm();
            PrivateKey privateKey = KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("raft", privateKey, MEMORY_STORE_PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(key + "=" + file + ": its private key does not fit its first certificate's "
                    + "key type, or cannot be read: " + e.getMessage());
        }
    }

    private static byte[] decrypt(Path file, byte[] der, String password) {
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            // OpenSSL's default, PBES2, is named only by its parameters (e.g. PBEWithHmacSHA256AndAES_256).
            String algorithm = info.getAlgName().equals("PBES2") ? info.getAlgParameters().toString()
                    : info.getAlgName();
            SecretKeyFactory factory = SecretKeyFactory.getInstance(algorithm);
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray());
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(spec), info.getAlgParameters());
            spec.clearPassword();
            return info.getKeySpec(cipher).getEncoded();
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException("raft.ssl.key.password does not decrypt the private key in "
                    + "raft.ssl.keystore.location=" + file + ": " + e.getMessage());
        }
    }

    /** A PEM file of certificates, each trusted, as a trust store. */
    private static KeyStore pemTrustStore(Path file) {
        String key = "raft.ssl.truststore.location";
        List<Certificate> certificates = certificates(key, file, pemBlocks(key, file));
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("trusted-" + i, certificates.get(i));
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(key + "=" + file + " cannot be used: " + e.getMessage());
        }
    }
}
