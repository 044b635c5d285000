package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.security.TestJwts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL OAUTHBEARER with signed JWTs (issue 21), with kafka-clients 4.4 configured as Kafka's documentation
 * configures it (OAuthBearerLoginCallbackHandler; here the token comes from a file, its file: token endpoint): the
 * broker validates tokens against the identity provider's key set (a JWKS file), with Kafka's settings
 * (sasl.oauthbearer.jwks.endpoint.url, expected audience and issuer, and the listener's
 * OAuthBearerValidatorCallbackHandler). A producer and a consumer group work with a valid token; an expired token and
 * one signed by another key are refused with SaslAuthenticationException; the token's subject is the principal ACLs
 * see.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OAuthBearerIT {
    private static final String TOPIC = "tokens";
    @TempDir
    static Path dir;
    private static BrokerFixture broker;
    private static KeyPair signing;

    @BeforeAll
    static void start() throws Exception {
        signing = TestJwts.rsa();
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, TestJwts.jwks(signing, TestJwts.ec()));
        broker = BrokerFixture.start(dir.resolve("data"), Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "OAUTHBEARER",
                "sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString(),
                "sasl.oauthbearer.expected.audience", "kafka",
                "sasl.oauthbearer.expected.issuer", "https://idp.example",
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:service-a"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
        System.clearProperty("org.apache.kafka.sasl.oauthbearer.allowed.urls");
    }

    /** Client settings that log in with the token written to a file (Kafka's file: token endpoint URL). */
    private static Properties client(String token) throws Exception {
        Path file = Files.createTempFile(dir, "token", ".jwt");
        Files.writeString(file, token);
        String url = file.toUri().toString();
        String allowed = System.getProperty("org.apache.kafka.sasl.oauthbearer.allowed.urls");
        System.setProperty("org.apache.kafka.sasl.oauthbearer.allowed.urls", allowed == null ? url
                : allowed + "," + url);
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        props.put(SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        props.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        props.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, url);
        return props;
    }

    private static String token(String subject, long expiresInSeconds, KeyPair key) throws Exception {
        long now = System.currentTimeMillis() / 1000;
        return TestJwts.sign("RS256", "rsa-1", TestJwts.claims(subject, now, expiresInSeconds), key.getPrivate());
    }

    /** librdkafka (confluent-kafka for Python, its oauth_cb) logs in with a signed token and round-trips. */
    @Test
    void confluentKafkaRoundTripsWithAToken() throws Exception {
        ExternalTool.require(dir, "python3", "-c", "import confluent_kafka");
        Path script = dir.resolve("confluent_round_trip.py");
        try (var in = OAuthBearerIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
            Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Path token = Files.writeString(dir.resolve("librdkafka.jwt"), token("service-a", 600, signing));
        String security = "security.protocol=SASL_PLAINTEXT;sasl.mechanism=OAUTHBEARER;cairn.oauth.token.file="
                + token;
        ExternalTool.Run run = ExternalTool.run(dir, null, "python3", script.toString(), broker.bootstrap(),
                "py-oauth", "200", security);
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("round trip ok: 200 messages"), run.stdout());

        Path forged = Files.writeString(dir.resolve("forged.jwt"), token("service-a", 600, TestJwts.rsa()));
        ExternalTool.Run refused = ExternalTool.run(dir, null, "python3", script.toString(), broker.bootstrap(),
                "py-oauth", "1", "security.protocol=SASL_PLAINTEXT;sasl.mechanism=OAUTHBEARER;message.timeout.ms=8000;"
                        + "cairn.oauth.token.file=" + forged);
        assertTrue(refused.exitCode() != 0, refused.stdout() + refused.stderr());
        assertTrue((refused.stdout() + refused.stderr()).contains("signature does not verify"),
                refused.stdout() + refused.stderr());
    }

    @Test
    void aValidTokenProducesAndConsumesAndOthersAreRefused() throws Exception {
        Properties admin = client(token("service-a", 600, signing));
        try (Admin client = Admin.create(admin)) {
            client.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties producer = client(token("service-a", 600, signing));
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> out = new KafkaProducer<>(producer)) {
            for (int i = 0; i < 10; i++) {
                out.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        Properties consumer = client(token("service-a", 600, signing));
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "token-readers");
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> in = new KafkaConsumer<>(consumer)) {
            in.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < 10) {
                assertTrue(System.nanoTime() < deadline, "consumed " + values.size() + " of 10");
                for (ConsumerRecord<String, String> record : in.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
            in.commitSync(Duration.ofSeconds(60));
        }
        assertEquals(10, values.size());

        // The token's subject is the principal: another subject without ACLs may log in but not read the topic.
        try (Admin other = Admin.create(client(token("service-b", 600, signing)))) {
            ExecutionException denied = assertThrows(ExecutionException.class,
                    () -> other.describeTopics(List.of(TOPIC)).allTopicNames().get(60, TimeUnit.SECONDS));
            assertInstanceOf(org.apache.kafka.common.errors.TopicAuthorizationException.class, denied.getCause());
        }
        // Signed by a key the identity provider does not publish: refused at login.
        try (Admin forged = Admin.create(client(token("service-a", 600, TestJwts.rsa())))) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> forged.describeCluster().clusterId().get(60, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, refused.getCause());
        }
    }
}
