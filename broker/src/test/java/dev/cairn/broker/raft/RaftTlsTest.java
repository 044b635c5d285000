package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.TestCertificates;
import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.RaftTlsSettings;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raft over TLS with mutual authentication (raft.ssl.*): the stores are read with clear errors that never show a
 * password, Ratis servers replicate over TLS, and a party without a certificate signed by the cluster's CA (plaintext,
 * or TLS with another CA), or a server whose certificate does not name the host it is reached at, is refused.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftTlsTest {
    private static final String PASSWORD = TestCertificates.PASSWORD;
    private static final RaftGroupId GROUP = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("tls-0".getBytes(
            StandardCharsets.UTF_8)));
    /** A refused client gives up after this many retries, each bounded by the request timeout below. */
    private static final int REFUSED_CLIENT_RETRIES = 2;
    private static final TimeDuration CLIENT_REQUEST_TIMEOUT = TimeDuration.valueOf(3, TimeUnit.SECONDS);

    @TempDir
    static Path certDir;
    @TempDir
    static Path otherCertDir;
    private static TestCertificates certs;
    /** Another CA, with a broker certificate of its own (for 127.0.0.1 too): the cluster does not trust it. */
    private static TestCertificates otherCa;

    @TempDir
    Path dir;
    private final List<RaftHost> hosts = new ArrayList<>();
    private final Map<String, RecordingStateMachine> machines = new ConcurrentHashMap<>();

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.create(certDir);
        otherCa = TestCertificates.create(otherCertDir);
    }

    @AfterEach
    void closeHosts() throws IOException {
        for (RaftHost host : hosts) {
            host.close();
        }
    }

    private static RaftTlsSettings pkcs12(Path keystore) {
        return new RaftTlsSettings("PKCS12", keystore, PASSWORD, "", "PKCS12", certs.truststore(), PASSWORD);
    }

    @Test
    void pkcs12StoresBecomeAMutualTlsConfiguration() {
        GrpcTlsConfig tls = RaftTls.grpcConfig(pkcs12(certs.brokerKeystore()));
        assertTrue(tls.getMtlsEnabled());
        assertTrue(tls.getKeyManager().getKeyManager() != null && tls.getTrustManager().getTrustManager() != null);
    }

    @Test
    void wrongPasswordsAndUntrustedCertificatesAreNamedButPasswordsNeverShown() {
        String wrong = "not-the-secret-42";
        ConfigException keystore = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(new RaftTlsSettings(
                "PKCS12", certs.brokerKeystore(), wrong, "", "PKCS12", certs.truststore(), PASSWORD)));
        assertTrue(keystore.getMessage().contains("raft.ssl.keystore.location=" + certs.brokerKeystore()),
                keystore.getMessage());
        ConfigException key = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(new RaftTlsSettings(
                "PKCS12", certs.brokerKeystore(), PASSWORD, wrong, "PKCS12", certs.truststore(), PASSWORD)));
        assertTrue(key.getMessage().contains("raft.ssl.key.password"), key.getMessage());
        ConfigException truststore = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(
                new RaftTlsSettings("PKCS12", certs.brokerKeystore(), PASSWORD, "", "PKCS12", certs.truststore(),
                        wrong)));
        assertTrue(truststore.getMessage().contains("raft.ssl.truststore.location"), truststore.getMessage());
        ConfigException type = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(new RaftTlsSettings(
                "JKS", certs.caPem(), PASSWORD, "", "PKCS12", certs.truststore(), PASSWORD)));
        assertTrue(type.getMessage().contains("cannot be read as JKS"), type.getMessage());
        ConfigException untrusted = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(
                pkcs12(otherCa.brokerKeystore())));
        assertTrue(untrusted.getMessage().contains("does not accept the certificate in raft.ssl.keystore.location"),
                untrusted.getMessage());
        for (ConfigException e : List.of(keystore, key, truststore, type, untrusted)) {
            assertFalse(e.getMessage().contains(wrong) || e.getMessage().contains(PASSWORD), e.getMessage());
        }
    }

    @Test
    void pemKeysPlainOrEncryptedAndPemCertificatesAreRead() throws Exception {
        Path plain = writePem(dir.resolve("broker.pem"), null);
        GrpcTlsConfig tls = RaftTls.grpcConfig(new RaftTlsSettings("PEM", plain, "", "", "PEM", certs.caPem(), ""));
        assertTrue(tls.getMtlsEnabled());

        String keyPassword = "pem-key-secret";
        Path encrypted = writePem(dir.resolve("broker-encrypted.pem"), keyPassword);
        RaftTls.grpcConfig(new RaftTlsSettings("PEM", encrypted, "", keyPassword, "PEM", certs.caPem(), ""));
        ConfigException wrong = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(new RaftTlsSettings(
                "PEM", encrypted, "", "not-it", "PEM", certs.caPem(), "")));
        assertTrue(wrong.getMessage().contains("raft.ssl.key.password does not decrypt"), wrong.getMessage());
        assertFalse(wrong.getMessage().contains("not-it") || wrong.getMessage().contains(keyPassword));

        Path sec1 = dir.resolve("sec1.pem");
        Files.writeString(sec1, Files.readString(plain).replace("BEGIN PRIVATE KEY", "BEGIN EC PRIVATE KEY")
                .replace("END PRIVATE KEY", "END EC PRIVATE KEY"));
        ConfigException notPkcs8 = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(
                new RaftTlsSettings("PEM", sec1, "", "", "PEM", certs.caPem(), "")));
        assertTrue(notPkcs8.getMessage().contains("openssl pkcs8"), notPkcs8.getMessage());
        Path noCertificates = writeText(dir.resolve("empty.pem"), "no certificates here\n");
        ConfigException noCertificate = assertThrows(ConfigException.class, () -> RaftTls.grpcConfig(
                new RaftTlsSettings("PEM", plain, "", "", "PEM", noCertificates, "")));
        assertTrue(noCertificate.getMessage().contains("holds no PEM certificate"), noCertificate.getMessage());
    }

    /**
     * Three Ratis servers over mutual TLS (one with a PEM keystore) elect a leader and replicate. Then outsiders try
     * the same port: a plaintext client, and a TLS client with a certificate from another CA (trusting the cluster's
     * CA, so only its own certificate is in question). Neither gets a command applied nor a group added; a client
     * with a broker certificate of the cluster's CA, asking the same, is served.
     */
    @Test
    void serversReplicateOverMutualTlsAndOutsidersAreRefused() throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(RaftHost.peer(Integer.toString(i + 1), "127.0.0.1:" + ports[i]));
        }
        Path pem = writePem(dir.resolve("broker-1.pem"), null);
        List<RaftTlsSettings> tls = List.of(new RaftTlsSettings("PEM", pem, "", "", "PEM", certs.caPem(), ""),
                pkcs12(certs.brokerKeystore()), pkcs12(certs.brokerKeystore()));
        for (int i = 0; i < 3; i++) {
            startHost(Integer.toString(i + 1), ports[i], tls.get(i)).addGroup(GROUP, peers);
        }
        RaftHost leader = awaitLeader();
        for (int i = 1; i <= 20; i++) {
            assertInstanceOf(SubmitResult.Applied.class, leader.submit(GROUP, utf8("c" + i)).get(30,
                    TimeUnit.SECONDS));
        }
        RaftHostTest.waitFor(() -> machines.values().stream().allMatch(m -> m.applied.size() == 20),
                "every replica applied 20 commands over TLS");

        RaftGroup group = RaftGroup.valueOf(GROUP, peers);
        RaftGroupId intruderGroup = RaftGroupId.valueOf(UUID.randomUUID());
        RaftGroup joined = RaftGroup.valueOf(intruderGroup, List.of(peers.get(0)));
        // The outsider with a certificate trusts the cluster's CA: only its own certificate is in question.
        List<GrpcTlsConfig> outsiders = new ArrayList<>();
        outsiders.add(null);
        outsiders.add(jdkTls(otherCa.brokerKeystore(), certs.truststore()));
        for (GrpcTlsConfig outsider : outsiders) {
            String who = outsider == null ? "a plaintext client" : "a client with another CA's certificate";
            try (RaftClient client = client(group, outsider)) {
                assertTrue(refused(client.async().send(Message.valueOf("intruder"))), who + " is refused");
                assertThrows(IOException.class, () -> client.getGroupManagementApi(RaftPeerId.valueOf("1"))
                        .add(joined), who + " cannot add a group");
            }
        }
        assertTrue(machines.values().stream().allMatch(m -> m.applied.size() == 20
                && !m.applied.contains("intruder")), "nothing was applied for the outsiders");
        assertFalse(hosts.get(0).hostsGroup(intruderGroup), "no group was added for the outsiders");

        try (RaftClient broker = client(group, RaftTls.grpcConfig(pkcs12(certs.brokerKeystore())))) {
            RaftClientReply reply = broker.async().send(Message.valueOf("member")).get(60, TimeUnit.SECONDS);
            assertTrue(reply.isSuccess(), "a client with a cluster certificate is served: " + reply);
        }
        RaftHostTest.waitFor(() -> machines.values().stream().allMatch(m -> m.applied.size() == 21),
                "every replica applied the member's command");
    }

    /**
     * The client side checks the server's host name: a server whose certificate (signed by the cluster's CA) names
     * another host is refused at 127.0.0.1, while one whose certificate names 127.0.0.1 is served.
     */
    @Test
    void clientsVerifyTheServersHostName() throws Exception {
        Path elsewhere = certs.signedKeystore("elsewhere", "CN=elsewhere.invalid,O=cairn-test",
                "dns:elsewhere.invalid");
        int wrongPort = freePort();
        int rightPort = freePort();
        startHost("1", wrongPort, pkcs12(elsewhere)).addGroup(GROUP,
                List.of(RaftHost.peer("1", "127.0.0.1:" + wrongPort)));
        RaftGroupId right = RaftGroupId.valueOf(UUID.randomUUID());
        startHost("2", rightPort, pkcs12(certs.brokerKeystore())).addGroup(right,
                List.of(RaftHost.peer("2", "127.0.0.1:" + rightPort)));
        RaftHostTest.waitFor(() -> hosts.get(0).role(GROUP).map(GroupRole::isLeader).orElse(false)
                && hosts.get(1).role(right).map(GroupRole::isLeader).orElse(false), "both single-node leaders");
        GrpcTlsConfig broker = RaftTls.grpcConfig(pkcs12(certs.brokerKeystore()));
        try (RaftClient client = client(RaftGroup.valueOf(GROUP, RaftHost.peer("1", "127.0.0.1:" + wrongPort)),
                broker)) {
            assertTrue(refused(client.async().send(Message.valueOf("wrong-host"))),
                    "a certificate for another host name is refused");
        }
        try (RaftClient client = client(RaftGroup.valueOf(right, RaftHost.peer("2", "127.0.0.1:" + rightPort)),
                broker)) {
            assertTrue(client.async().send(Message.valueOf("right-host")).get(60, TimeUnit.SECONDS).isSuccess());
        }
        assertEquals(List.of(), machines.get("1").applied);
    }

    private RaftHost startHost(String id, int port, RaftTlsSettings tls) throws IOException {
        RatisSettings settings = RatisSettings.defaults(dir.resolve("n" + id).toFile(), "127.0.0.1", port)
                .withTls(Optional.of(tls));
        RaftHost host = new RaftHost(id, settings, groupId -> {
            RecordingStateMachine machine = new RecordingStateMachine();
            machines.put(id, machine);
            return machine;
        });
        host.start();
        hosts.add(host);
        return host;
    }

    private RaftHost awaitLeader() throws InterruptedException {
        RaftHost[] found = new RaftHost[1];
        RaftHostTest.waitFor(() -> {
            for (RaftHost host : hosts) {
                if (host.role(GROUP).map(GroupRole::isLeader).orElse(false)) {
                    found[0] = host;
                    return true;
                }
            }
            return false;
        }, "a leader over TLS");
        return found[0];
    }

    /**
     * A Ratis client with Cairn's properties and {@code tls} (plaintext when null), with a bounded retry policy so
     * that a refusal ends in seconds.
     */
    private static RaftClient client(RaftGroup group, GrpcTlsConfig tls) {
        RaftProperties properties = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0).toProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, CLIENT_REQUEST_TIMEOUT);
        Parameters parameters = new Parameters();
        if (tls != null) {
            GrpcConfigKeys.TLS.setConf(parameters, tls);
        }
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties).setParameters(parameters)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(REFUSED_CLIENT_RETRIES,
                        TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** Mutual TLS from PKCS12 stores, built with the JDK alone (as an outsider would, without Cairn's checks). */
    private static GrpcTlsConfig jdkTls(Path keystore, Path truststore) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore); InputStream trustIn = Files.newInputStream(truststore)) {
            keys.load(in, PASSWORD.toCharArray());
            trusted.load(trustIn, PASSWORD.toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, PASSWORD.toCharArray());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        return new GrpcTlsConfig(keyManagers.getKeyManagers()[0], trustManagers.getTrustManagers()[0], true);
    }

    /** Whether a request failed: completed exceptionally or with a failed reply, within a minute. */
    private static boolean refused(CompletableFuture<RaftClientReply> request) throws Exception {
        try {
            return !request.get(60, TimeUnit.SECONDS).isSuccess();
        } catch (ExecutionException e) {
            return true;
        }
    }

    private static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        return dev.cairn.broker.BrokerFixture.freePort();
    }

    private static Path writeText(Path file, String text) throws IOException {
        return Files.writeString(file, text, StandardCharsets.US_ASCII);
    }

    /**
     * The broker's key (PKCS#8, encrypted with {@code password} by PBES2 when it is not null) and its certificate
     * chain in one PEM file, as {@code openssl pkcs12 -nodes} or {@code openssl pkcs8 -topk8} would write them.
     */
    private static Path writePem(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certs.brokerKeystore())) {
            store.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) store.getKey("broker", PASSWORD.toCharArray());
        StringBuilder pem = new StringBuilder();
        if (password == null) {
            pem.append(pem("PRIVATE KEY", key.getEncoded()));
        } else {
            String algorithm = "PBEWithHmacSHA256AndAES_256";
            byte[] salt = new byte[16];
            byte[] iv = new byte[16];
            new SecureRandom().nextBytes(salt);
            new SecureRandom().nextBytes(iv);
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.ENCRYPT_MODE, SecretKeyFactory.getInstance(algorithm).generateSecret(
                    new PBEKeySpec(password.toCharArray())),
                    new PBEParameterSpec(salt, 10_000, new IvParameterSpec(iv)));
            // EncryptedPrivateKeyInfo has no OID for PBES2 parameters in JDK 17: its DER is written here.
            byte[] pbes2 = {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x05, 0x0d};
            byte[] info = der(0x30, der(0x30, pbes2, cipher.getParameters().getEncoded()),
                    der(0x04, cipher.doFinal(key.getEncoded())));
            assertEquals("PBES2", new EncryptedPrivateKeyInfo(info).getAlgName());
            pem.append(pem("ENCRYPTED PRIVATE KEY", info));
        }
        for (Certificate certificate : store.getCertificateChain("broker")) {
            pem.append(pem("CERTIFICATE", certificate.getEncoded()));
        }
        return writeText(file, pem.toString());
    }

    /** A DER element: {@code tag}, definite length, then the parts. */
    private static byte[] der(int tag, byte[]... parts) {
        java.io.ByteArrayOutputStream content = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(tag);
        int length = content.size();
        if (length < 0x80) {
            out.write(length);
        } else if (length < 0x100) {
            out.write(0x81);
            out.write(length);
        } else {
            out.write(0x82);
            out.write(length >> 8);
            out.write(length & 0xff);
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
