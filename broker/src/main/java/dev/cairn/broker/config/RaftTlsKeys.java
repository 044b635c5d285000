package dev.cairn.broker.config;

import static dev.cairn.broker.config.ConfigKey.boolKey;
import static dev.cairn.broker.config.ConfigKey.passwordKey;
import static dev.cairn.broker.config.ConfigKey.stringKey;

import java.util.List;

/**
 * The keys of TLS between brokers, on the Raft port (raft.listener). Always mutual: every broker presents its
 * certificate on each Raft connection, as server and as client, and requires its peer's, signed by something in its
 * truststore. A host without such a certificate can neither join a Raft group nor append to one.
 */
public final class RaftTlsKeys {
    public static final ConfigKey<Boolean> RAFT_SSL_ENABLED = boolKey("raft.ssl.enabled", false,
            "Raft traffic between brokers over TLS with mutual authentication (raft.ssl.keystore.location and "
            + "raft.ssl.truststore.location required); every broker of a cluster must set the same.");
    public static final ConfigKey<String> RAFT_SSL_KEYSTORE_TYPE = stringKey("raft.ssl.keystore.type", "PKCS12",
            "Format of raft.ssl.keystore.location: PKCS12, JKS, or PEM (a file with the PKCS#8 private key and its "
            + "certificate chain).");
    public static final ConfigKey<String> RAFT_SSL_KEYSTORE_LOCATION = stringKey("raft.ssl.keystore.location", "",
            "This broker's key and certificate on the Raft port; the certificate's subject alternative names must "
            + "hold this broker's host in raft.voters (its IP address or DNS name), which peers verify.");
    public static final ConfigKey<String> RAFT_SSL_KEYSTORE_PASSWORD = passwordKey("raft.ssl.keystore.password",
            "Password of the Raft keystore (PKCS12, JKS).");
    public static final ConfigKey<String> RAFT_SSL_KEY_PASSWORD = passwordKey("raft.ssl.key.password",
            "Password of the Raft private key, when it differs from the keystore's (or of an encrypted PEM key).");
    public static final ConfigKey<String> RAFT_SSL_TRUSTSTORE_TYPE = stringKey("raft.ssl.truststore.type", "PKCS12",
            "Format of raft.ssl.truststore.location: PKCS12, JKS, or PEM (certificates).");
    public static final ConfigKey<String> RAFT_SSL_TRUSTSTORE_LOCATION = stringKey("raft.ssl.truststore.location",
            "", "Certificates trusted to sign the brokers' Raft certificates (the JDK's are never used): best a CA "
            + "that signs broker certificates only, since any certificate it signed may speak Raft.");
    public static final ConfigKey<String> RAFT_SSL_TRUSTSTORE_PASSWORD = passwordKey("raft.ssl.truststore.password",
            "Password of the Raft truststore (PKCS12, JKS).");

    public static final List<ConfigKey<?>> KEYS = List.of(RAFT_SSL_ENABLED, RAFT_SSL_KEYSTORE_TYPE,
            RAFT_SSL_KEYSTORE_LOCATION, RAFT_SSL_KEYSTORE_PASSWORD, RAFT_SSL_KEY_PASSWORD, RAFT_SSL_TRUSTSTORE_TYPE,
            RAFT_SSL_TRUSTSTORE_LOCATION, RAFT_SSL_TRUSTSTORE_PASSWORD);

    private RaftTlsKeys() {
    }
}
