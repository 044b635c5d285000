package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's Java client over Cairn's TLS and SASL listeners, with the client's defaults plus the security settings a
 * user would set: TLS with a private CA (records fetched through the TLS copy path), mutual TLS with and without a
 * client certificate, and SASL_SSL with SCRAM-SHA-512 credentials created through Kafka's Admin API by a PLAIN admin.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SecureListenerIT {
    private static final int RECORDS = 2_000;
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static TestCertificates certs;

    @TempDir
    static Path certDir;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.create(certDir);
    }

    @Test
    void tlsListenerServesProduceAndFetch(@TempDir Path dataDir) throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, tlsBroker("SSL", "none"))) {
            Properties client = tlsClient(broker, "SSL", false);
            roundTrip(client, "tls-topic");
        }
    }

    /**
     * Issue 21, acceptance 3, on a SASL_SSL listener: a Kafka request in plaintext, a ClientHello cut short (the
     * client then waits), and random bytes each close their own connection, within the handshake timeout; a client
     * doing it right is served all along.
     */
    @Test
    void hostileBytesOnATlsPortCloseOnlyTheirConnections(@TempDir Path dataDir) throws Exception {
        Map<String, String> settings = tlsBroker("SASL_SSL", "none");
        settings.put("sasl.enabled.mechanisms", "PLAIN");
        settings.put("listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, settings)) {
            int port = Integer.parseInt(broker.bootstrap().substring(broker.bootstrap().lastIndexOf(':') + 1));
            // An ApiVersions v0 request frame, as a client that forgot TLS sends it.
            byte[] plaintext = java.nio.ByteBuffer.allocate(14).putInt(10).putShort((short) 18).putShort((short) 0)
                    .putInt(1).putShort((short) -1).array();
            // A TLS record header announcing a 16,000-byte handshake record, then only 4 bytes of it.
            byte[] truncatedHello = {0x16, 0x03, 0x01, 0x3e, (byte) 0x80, 0x01, 0x00, 0x3e, 0x7c};
            byte[] random = new byte[64 * 1024];
            new java.util.Random(21).nextBytes(random);
            List<java.net.Socket> hostile = new ArrayList<>();
            try {
                for (byte[] bytes : List.of(plaintext, truncatedHello, random)) {
                    java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
                    socket.setSoTimeout((int) (dev.cairn.broker.config.Limits.TLS_HANDSHAKE_TIMEOUT_MS + 20_000));
                    hostile.add(socket);
                    try {
                        socket.getOutputStream().write(bytes);
                    } catch (java.io.IOException e) {
                        // Reset while writing: the broker closed it already.
                    }
                }
                Properties client = sasl(tlsClient(broker, "SASL_SSL", false), "PLAIN",
                        "org.apache.kafka.common.security.plain.PlainLoginModule", "admin", "admin-secret");
                roundTrip(client, "beside-hostile");
                for (java.net.Socket socket : hostile) {
                    assertTrue(closedByBroker(socket), "the broker closes a connection that sent hostile bytes");
                }
            } finally {
                for (java.net.Socket socket : hostile) {
                    socket.close();
                }
            }
        }
    }

    /** Whether the broker ended the connection (end of stream or reset) before the socket's read timeout. */
    private static boolean closedByBroker(java.net.Socket socket) {
        try {
            java.io.InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            // A TLS alert may come first; the bytes read are bounded by the alert's size.
            for (int reads = 0; reads < 16; reads++) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
            return false;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.io.IOException e) {
            return true;
        }
    }

    @Test
    void mutualTlsRequiresAClientCertificate(@TempDir Path dataDir) throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, tlsBroker("SSL", "required"))) {
            roundTrip(tlsClient(broker, "SSL", true), "mtls-topic");
            Properties noCertificate = tlsClient(broker, "SSL", false);
            noCertificate.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
            noCertificate.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
            try (Admin admin = Admin.create(noCertificate)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
                assertTrue(refused.getCause() instanceof org.apache.kafka.common.errors.SslAuthenticationException
                        || refused.getCause() instanceof org.apache.kafka.common.errors.TimeoutException,
                        "refused without a certificate: " + refused.getCause());
            }
            // The broker still serves clients that present one.
            roundTrip(tlsClient(broker, "SSL", true), "mtls-topic-2");
        }
    }

    /**
     * ssl.principal.mapping.rules (Kafka's syntax): the rule names the client certificate CN=client-1,O=cairn-test
     * "client-1", the super user with ACLs on, so it may do anything; with rules that match nothing the client is
     * not authenticated and refused.
     */
    @Test
    void principalMappingRulesNameTheClientCertificate(@TempDir Path dataDir) throws Exception {
        Map<String, String> settings = tlsBroker("SSL", "required");
        settings.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),O=cairn-test$/$1/L,DEFAULT");
        settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.put("super.users", "User:client-1");
        try (BrokerFixture broker = BrokerFixture.start(dataDir.resolve("mapped"), settings)) {
            roundTrip(tlsClient(broker, "SSL", true), "mapped-topic");
        }
        settings.put("ssl.principal.mapping.rules", "RULE:^CN=nobody$/nobody/");
        try (BrokerFixture broker = BrokerFixture.start(dataDir.resolve("unmapped"), settings)) {
            Properties client = tlsClient(broker, "SSL", true);
            client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
            client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
            try (Admin admin = Admin.create(client)) {
                assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void saslSslScramUsersAreCreatedByAdminAndLogIn(@TempDir Path dataDir) throws Exception {
        Map<String, String> settings = tlsBroker("SASL_SSL", "none");
        settings.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512,SCRAM-SHA-256");
        settings.put("listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"" + ADMIN_PASSWORD
                        + "\";");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, settings)) {
            Properties admin = sasl(tlsClient(broker, "SASL_SSL", false), "PLAIN",
                    "org.apache.kafka.common.security.plain.PlainLoginModule", "admin", ADMIN_PASSWORD);
            try (Admin client = Admin.create(admin)) {
                client.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "alice-secret")))
                        .all().get(60, TimeUnit.SECONDS);
                UserScramCredentialsDescription alice = client.describeUserScramCredentials(List.of("alice"))
                        .description("alice").get(60, TimeUnit.SECONDS);
                assertEquals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)),
                        alice.credentialInfos());
            }
            String scram = "org.apache.kafka.common.security.scram.ScramLoginModule";
            roundTrip(sasl(tlsClient(broker, "SASL_SSL", false), "SCRAM-SHA-512", scram, "alice", "alice-secret"),
                    "scram-topic");

            Properties wrong = sasl(tlsClient(broker, "SASL_SSL", false), "SCRAM-SHA-512", scram, "alice", "wrong");
            try (Admin client = Admin.create(wrong)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> client.describeCluster().clusterId().get(60, TimeUnit.SECONDS));
                assertInstanceOf(SaslAuthenticationException.class, refused.getCause());
            }
            Properties unknown = sasl(tlsClient(broker, "SASL_SSL", false), "SCRAM-SHA-256", scram, "alice",
                    "alice-secret");
            try (Admin client = Admin.create(unknown)) {
                // alice has no SCRAM-SHA-256 credential: refused like a wrong password.
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> client.describeCluster().clusterId().get(60, TimeUnit.SECONDS));
                assertInstanceOf(SaslAuthenticationException.class, refused.getCause());
            }
        }
    }

    private static Map<String, String> tlsBroker(String protocol, String clientAuth) {
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", protocol + "://127.0.0.1:0");
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", certs.brokerKeystore().toString());
        settings.put("ssl.keystore.password", TestCertificates.PASSWORD);
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.location", certs.truststore().toString());
        settings.put("ssl.truststore.password", TestCertificates.PASSWORD);
        settings.put("ssl.client.auth", clientAuth);
        return settings;
    }

    private static Properties tlsClient(BrokerFixture broker, String protocol, boolean withCertificate) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        props.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.truststore().toString());
        props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        if (withCertificate) {
            props.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
            props.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, certs.clientKeystore().toString());
            props.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        }
        return props;
    }

    private static Properties sasl(Properties props, String mechanism, String module, String user, String password) {
        props.put(SaslConfigs.SASL_MECHANISM, mechanism);
        props.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\""
                + password + "\";");
        return props;
    }

    /** Creates a topic, produces {@link #RECORDS} records with acks=all, and reads every one back in order. */
    private static void roundTrip(Properties client, String topic) throws Exception {
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties producerProps = new Properties();
        producerProps.putAll(client);
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, ("value-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        Properties consumerProps = new Properties();
        consumerProps.putAll(client);
        consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertEquals(RECORDS, values.size(), "records read back over " + client.get("security.protocol"));
        for (int i = 0; i < RECORDS; i++) {
            assertEquals("value-" + i, values.get(i));
        }
    }
}
