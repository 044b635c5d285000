package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.ExternalTool.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka over Cairn's SASL_SSL listener with SCRAM-SHA-512 and ACLs on, as a user would configure it: kcat and
 * confluent-kafka for Python produce and consume with their defaults plus the security settings; a wrong password is
 * refused with Kafka's message (both clients), and a user without ACLs with Kafka's authorization error until Kafka's
 * own kafka-acls allows it (issue 21, acceptance 1). The users and alice's ACLs are created through Kafka's Admin API
 * by a PLAIN super user. A second broker takes mutual TLS: kcat and confluent-kafka with a client certificate
 * (PKCS12) are served, kcat without one is refused.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LibrdkafkaSecurityIT {
    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret";
    @TempDir
    static Path dir;
    private static BrokerFixture broker;
    private static TestCertificates certs;

    @BeforeAll
    static void start() throws Exception {
        Path certDir = Files.createDirectories(dir.resolve("certs"));
        certs = TestCertificates.create(certDir);
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "SASL_SSL://127.0.0.1:0");
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", certs.brokerKeystore().toString());
        settings.put("ssl.keystore.password", TestCertificates.PASSWORD);
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN");
        settings.put("listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
        settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.put("super.users", "User:admin");
        broker = BrokerFixture.start(Files.createDirectories(dir.resolve("data")), settings);
        Properties admin = new Properties();
        admin.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        admin.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        admin.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        admin.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.truststore().toString());
        admin.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        admin.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        admin.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";");
        try (Admin client = Admin.create(admin)) {
            client.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), PASSWORD),
                    new UserScramCredentialUpsertion("bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "bob-secret"),
                    new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                            4096), "carol-secret"))).all().get(60, TimeUnit.SECONDS);
            // alice may do anything with topics and groups (kafka-acls --add --allow-principal User:alice
            // --operation All --topic '*' --group '*'); bob has no ACL.
            client.createAcls(List.of(allowAlice(ResourceType.TOPIC), allowAlice(ResourceType.GROUP)))
                    .all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static AclBinding allowAlice(ResourceType type) {
        return new AclBinding(new ResourcePattern(type, "*", PatternType.LITERAL),
                new AccessControlEntry("User:" + USER, "*", AclOperation.ALL, AclPermissionType.ALLOW));
    }

    private static String[] kcat(String password, String... rest) {
        return kcatAs(USER, password, rest);
    }

    private static String[] kcatAs(String user, String password, String... rest) {
        List<String> command = new java.util.ArrayList<>(List.of("kcat", "-b", broker.bootstrap(),
                "-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanism=SCRAM-SHA-512",
                "-X", "sasl.username=" + user, "-X", "sasl.password=" + password,
                "-X", "ssl.ca.location=" + certs.caPem()));
        command.addAll(List.of(rest));
        return command.toArray(String[]::new);
    }

    /** Runs confluent_round_trip.py (a copy named {@code name}) with the librdkafka settings {@code security}. */
    private static Run confluentRoundTrip(String name, String bootstrap, String topic, int count, String security)
            throws Exception {
        ExternalTool.require(dir, "python3", "-c", "import confluent_kafka");
        Path script = dir.resolve(name + ".py");
        if (!Files.exists(script)) {
            try (var in = LibrdkafkaSecurityIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
                Files.copy(in, script);
            }
        }
        return ExternalTool.run(dir, null, "python3", script.toString(), bootstrap, topic, Integer.toString(count),
                security);
    }

    private static String scram(String user, String password) {
        return "security.protocol=SASL_SSL;sasl.mechanism=SCRAM-SHA-512;sasl.username=" + user + ";sasl.password="
                + password + ";ssl.ca.location=" + certs.caPem();
    }

    @Test
    void confluentKafkaWithAWrongPasswordIsRefused() throws Exception {
        Run run = confluentRoundTrip("confluent_wrong_password", broker.bootstrap(), "py-secure", 1,
                scram(USER, "wrong") + ";message.timeout.ms=10000");
        assertNotEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stderr().contains("invalid credentials with SASL mechanism SCRAM-SHA-512"), run.stderr());
    }

    /**
     * Kafka 4.4's kafka-acls, over SASL_SSL as the PLAIN super user, lets carol (refused until then) produce with
     * kcat and round-trip with confluent-kafka, on the topics whose names start with "granted" (a prefixed ACL).
     */
    @Test
    void kafkaAclsLetsAUserInForKcatAndConfluentKafka() throws Exception {
        ExternalTool.require(dir, "kcat", "-V");
        String topic = "granted";
        Run before = ExternalTool.run(dir, "one\n", kcatAs("carol", "carol-secret", "-t", topic, "-P"));
        assertNotEquals(0, before.exitCode(), before.stderr());
        assertTrue(before.stderr().contains("Topic authorization failed"), before.stderr());
        Path adminConfig = dir.resolve("acl-admin.properties");
        Files.writeString(adminConfig, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";\nssl.truststore.type=PKCS12\n"
                + "ssl.truststore.location=" + certs.truststore() + "\nssl.truststore.password="
                + TestCertificates.PASSWORD + "\n");
        KafkaTool.install();
        try {
            KafkaTool.ToolRun add = KafkaTool.run(org.apache.kafka.tools.AclCommand::main, "--bootstrap-server",
                    broker.bootstrap(), "--command-config", adminConfig.toString(), "--add", "--allow-principal",
                    "User:carol", "--operation", "All", "--resource-pattern-type", "prefixed", "--topic", topic);
            assertEquals(0, add.exitCode(), add.toString());
            // confluent-kafka's consumer has a group.id, so librdkafka looks up its coordinator (Describe on it).
            KafkaTool.ToolRun group = KafkaTool.run(org.apache.kafka.tools.AclCommand::main, "--bootstrap-server",
                    broker.bootstrap(), "--command-config", adminConfig.toString(), "--add", "--allow-principal",
                    "User:carol", "--operation", "Read", "--group", "py-standalone");
            assertEquals(0, group.exitCode(), group.toString());
        } finally {
            KafkaTool.uninstall();
        }
        Run produce = ExternalTool.run(dir, "one\ntwo\n", kcatAs("carol", "carol-secret", "-t", topic, "-P",
                "-X", "acks=all"));
        assertEquals(0, produce.exitCode(), produce.stderr());
        Run consume = ExternalTool.run(dir, null, kcatAs("carol", "carol-secret", "-t", topic, "-C", "-e", "-q"));
        assertEquals(0, consume.exitCode(), consume.stderr());
        assertEquals(List.of("one", "two"), List.of(consume.stdout().split("\n")));
        Run roundTrip = confluentRoundTrip("confluent_carol", broker.bootstrap(), topic + "-py", 100,
                scram("carol", "carol-secret"));
        assertEquals(0, roundTrip.exitCode(), roundTrip.stdout() + roundTrip.stderr());
        assertTrue(roundTrip.stdout().contains("round trip ok: 100 messages"), roundTrip.stdout());
    }

    @Test
    void kcatProducesAndConsumesWithScramOverTls() throws Exception {
        ExternalTool.require(dir, "kcat", "-V");
        String lines = IntStream.range(0, 2000).mapToObj(i -> "line-" + i).collect(Collectors.joining("\n")) + "\n";
        Run produce = ExternalTool.run(dir, lines, kcat(PASSWORD, "-t", "kcat-secure", "-P", "-X", "acks=all"));
        assertEquals(0, produce.exitCode(), produce.stderr());
        Run consume = ExternalTool.run(dir, null, kcat(PASSWORD, "-t", "kcat-secure", "-C", "-e", "-q"));
        assertEquals(0, consume.exitCode(), consume.stderr());
        List<String> consumed = List.of(consume.stdout().split("\n"));
        assertEquals(2000, consumed.size(), "kcat consumed every line over TLS");
        assertEquals("line-1999", consumed.get(1999));
    }

    @Test
    void kcatWithAWrongPasswordIsRefused() throws Exception {
        ExternalTool.require(dir, "kcat", "-V");
        Run metadata = ExternalTool.run(dir, null, kcat("wrong", "-L", "-m", "10"));
        assertNotEquals(0, metadata.exitCode(), metadata.stdout());
        assertTrue(metadata.stderr().contains("invalid credentials with SASL mechanism SCRAM-SHA-512"),
                metadata.stderr());
    }

    @Test
    void confluentKafkaRoundTripsWithScramOverTls() throws Exception {
        ExternalTool.require(dir, "python3", "-c", "import confluent_kafka");
        Path script = dir.resolve("confluent_round_trip.py");
        try (var in = LibrdkafkaSecurityIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
            Files.copy(in, script);
        }
        String security = "security.protocol=SASL_SSL;sasl.mechanism=SCRAM-SHA-512;sasl.username=" + USER
                + ";sasl.password=" + PASSWORD + ";ssl.ca.location=" + certs.caPem();
        Run run = ExternalTool.run(dir, null, "python3", script.toString(), broker.bootstrap(), "py-secure", "1000",
                security);
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("round trip ok: 1000 messages"), run.stdout());
    }

    @Test
    void aUserWithoutAclsIsRefusedByKcatAndConfluentKafka() throws Exception {
        ExternalTool.require(dir, "kcat", "-V");
        Run produce = ExternalTool.run(dir, "one\n", kcatAs("bob", "bob-secret", "-t", "kcat-secure", "-P"));
        assertNotEquals(0, produce.exitCode(), produce.stderr());
        assertTrue(produce.stderr().contains("Topic authorization failed"), produce.stderr());
        ExternalTool.require(dir, "python3", "-c", "import confluent_kafka");
        Path script = dir.resolve("confluent_round_trip_bob.py");
        try (var in = LibrdkafkaSecurityIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
            Files.copy(in, script);
        }
        String security = "security.protocol=SASL_SSL;sasl.mechanism=SCRAM-SHA-512;sasl.username=bob"
                + ";sasl.password=bob-secret;ssl.ca.location=" + certs.caPem() + ";message.timeout.ms=15000";
        Run run = ExternalTool.run(dir, null, "python3", script.toString(), broker.bootstrap(), "py-secure", "10",
                security);
        assertNotEquals(0, run.exitCode(), run.stdout() + run.stderr());
        // Refused at the topic (TOPIC_AUTHORIZATION_FAILED) or, for the idempotent producer's InitProducerId, at
        // the cluster (CLUSTER_AUTHORIZATION_FAILED), whichever librdkafka meets first.
        String output = (run.stdout() + run.stderr()).toLowerCase(java.util.Locale.ROOT);
        assertTrue(output.contains("authorization_failed") || output.contains("authorization failed"), output);
    }

    @Test
    void kcatWithAClientCertificateIsServedByAMutualTlsBrokerAndRefusedWithout() throws Exception {
        ExternalTool.require(dir, "kcat", "-V");
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "SSL://127.0.0.1:0");
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", certs.brokerKeystore().toString());
        settings.put("ssl.keystore.password", TestCertificates.PASSWORD);
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.location", certs.truststore().toString());
        settings.put("ssl.truststore.password", TestCertificates.PASSWORD);
        settings.put("ssl.client.auth", "required");
        try (BrokerFixture mtls = BrokerFixture.start(Files.createDirectories(dir.resolve("mtls-data")), settings)) {
            List<String> base = List.of("kcat", "-b", mtls.bootstrap(), "-X", "security.protocol=SSL",
                    "-X", "ssl.ca.location=" + certs.caPem());
            List<String> withCertificate = new java.util.ArrayList<>(base);
            withCertificate.addAll(List.of("-X", "ssl.keystore.location=" + certs.clientKeystore(),
                    "-X", "ssl.keystore.password=" + TestCertificates.PASSWORD));
            String lines = IntStream.range(0, 500).mapToObj(i -> "m-" + i).collect(Collectors.joining("\n")) + "\n";
            List<String> produce = new java.util.ArrayList<>(withCertificate);
            produce.addAll(List.of("-t", "mtls-topic", "-P"));
            Run produced = ExternalTool.run(dir, lines, produce.toArray(String[]::new));
            assertEquals(0, produced.exitCode(), produced.stderr());
            List<String> consume = new java.util.ArrayList<>(withCertificate);
            consume.addAll(List.of("-t", "mtls-topic", "-C", "-e", "-q"));
            Run consumed = ExternalTool.run(dir, null, consume.toArray(String[]::new));
            assertEquals(0, consumed.exitCode(), consumed.stderr());
            assertEquals(500, consumed.stdout().split("\n").length, "kcat read back every line over mutual TLS");
            List<String> without = new java.util.ArrayList<>(base);
            without.addAll(List.of("-L", "-m", "10"));
            Run refused = ExternalTool.run(dir, null, without.toArray(String[]::new));
            assertNotEquals(0, refused.exitCode(), refused.stdout());
            // confluent-kafka with the same client certificate.
            Run roundTrip = confluentRoundTrip("confluent_mtls", mtls.bootstrap(), "py-mtls", 200,
                    "security.protocol=SSL;ssl.ca.location=" + certs.caPem() + ";ssl.keystore.location="
                    + certs.clientKeystore() + ";ssl.keystore.password=" + TestCertificates.PASSWORD);
            assertEquals(0, roundTrip.exitCode(), roundTrip.stdout() + roundTrip.stderr());
            assertTrue(roundTrip.stdout().contains("round trip ok: 200 messages"), roundTrip.stdout());
        }
    }
}
