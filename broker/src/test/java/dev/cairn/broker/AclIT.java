package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's ACL model on a SASL listener, through Kafka's own clients with their defaults: with
 * {@code authorizer.class.name} set, a user without ACLs is refused with Kafka's errors (topic and group
 * authorization), a super user may do anything, and ACLs created through Admin (what {@code kafka-acls --add}
 * sends) let the user produce and consume in a group; DescribeAcls lists them and DeleteAcls takes the right away.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AclIT {
    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\" "
                        + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin"));
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static Properties client(String user, String password) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        props.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        return props;
    }

    private static Properties producer(String user, String password) {
        Properties props = client(user, password);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return props;
    }

    private static Properties consumer(String user, String password) {
        Properties props = client(user, password);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return props;
    }

    private static AclBinding allow(ResourceType type, String name, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW));
    }

    /**
     * Issue 21, acceptance 1: Kafka 4.4's own kafka-acls (its main class, in this JVM) as the admin user grants bob
     * the right to write a topic, lists it, and removes it again; bob's produce is refused, then allowed, then refused.
     */
    @Test
    void kafkaAclsToolGrantsAndRevokesTheRightToProduce() throws Exception {
        Path adminConfig = dataDir.resolve("admin.properties");
        java.nio.file.Files.writeString(adminConfig, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";\n");
        String topic = "audited";
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        assertInstanceOf(TopicAuthorizationException.class, bobProduces(topic));
        KafkaTool.install();
        try {
            KafkaTool.ToolRun add = KafkaTool.run(org.apache.kafka.tools.AclCommand::main, "--bootstrap-server",
                    broker.bootstrap(), "--command-config", adminConfig.toString(), "--add", "--allow-principal",
                    "User:bob", "--operation", "Write", "--operation", "Describe", "--topic", topic);
            assertEquals(0, add.exitCode(), add.toString());
            assertEquals(null, bobProduces(topic), "bob may write once kafka-acls --add allowed it");
            KafkaTool.ToolRun list = KafkaTool.run(org.apache.kafka.tools.AclCommand::main, "--bootstrap-server",
                    broker.bootstrap(), "--command-config", adminConfig.toString(), "--list", "--topic", topic);
            assertEquals(0, list.exitCode(), list.toString());
            assertTrue(list.out().contains("principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW"),
                    list.toString());
            KafkaTool.ToolRun remove = KafkaTool.run(org.apache.kafka.tools.AclCommand::main, "--bootstrap-server",
                    broker.bootstrap(), "--command-config", adminConfig.toString(), "--remove", "--force",
                    "--allow-principal", "User:bob", "--operation", "Write", "--operation", "Describe", "--topic",
                    topic);
            assertEquals(0, remove.exitCode(), remove.toString());
        } finally {
            KafkaTool.uninstall();
        }
        assertInstanceOf(TopicAuthorizationException.class, bobProduces(topic));
    }

    /** What bob's produce to {@code topic} failed with, or null when it was acknowledged. */
    private static Throwable bobProduces(String topic) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producer("bob", "bob-secret"))) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(60, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aliceIsRefusedUntilAclsAllowHerAndAgainAfterTheyAreDeleted() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producer("alice", "alice-secret"))) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get(60, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
        }
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            admin.createAcls(List.of(allow(ResourceType.TOPIC, TOPIC, AclOperation.WRITE),
                    allow(ResourceType.TOPIC, TOPIC, AclOperation.READ))).all().get(60, TimeUnit.SECONDS);
            Collection<AclBinding> listed = admin.describeAcls(new AclBindingFilter(ResourcePatternFilter.ANY,
                    AccessControlEntryFilter.ANY)).values().get(60, TimeUnit.SECONDS);
            assertEquals(2, listed.size(), "DescribeAcls lists both: " + listed);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producer("alice", "alice-secret"))) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
            }
        }
        // READ on the topic but none on the group: the group coordinator refuses her.
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumer("alice", "alice-secret"))) {
            consumer.subscribe(List.of(TOPIC));
            assertThrows(GroupAuthorizationException.class, () -> pollUntil(consumer, 1));
        }
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            admin.createAcls(List.of(allow(ResourceType.GROUP, GROUP, AclOperation.READ)))
                    .all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumer("alice", "alice-secret"))) {
            consumer.subscribe(List.of(TOPIC));
            List<String> values = pollUntil(consumer, 100);
            assertEquals("v0", values.get(0));
            consumer.commitSync();
        }
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            Collection<AclBinding> deleted = admin.deleteAcls(List.of(new AclBindingFilter(
                    new ResourcePatternFilter(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
                    new AccessControlEntryFilter("User:alice", null, AclOperation.WRITE, AclPermissionType.ANY))))
                    .all().get(60, TimeUnit.SECONDS);
            assertEquals(1, deleted.size());
        }
        // Without WRITE on any topic the idempotent producer is refused either at Metadata (topic) or at
        // InitProducerId (cluster: it needs IDEMPOTENT_WRITE or WRITE somewhere), whichever answers first, as in Kafka.
        // When InitProducerId is refused before send() runs, the client throws from send() itself (its transaction
        // manager is in an error state, the refusal as the cause); otherwise the send's future fails with it.
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producer("alice", "alice-secret"))) {
            Throwable refused;
            try {
                producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get(60, TimeUnit.SECONDS);
                throw new AssertionError("alice wrote without WRITE");
            } catch (ExecutionException failedSend) {
                refused = failedSend.getCause();
            } catch (org.apache.kafka.common.KafkaException refusedAtSend) {
                refused = refusedAtSend.getCause();
            }
            assertInstanceOf(org.apache.kafka.common.errors.AuthorizationException.class, refused);
        }
    }

    @Test
    void aUserWhoMayNotDescribeATopicDoesNotSeeIt() throws Exception {
        try (Admin admin = Admin.create(client("alice", "alice-secret"))) {
            assertTrue(admin.listTopics().names().get(60, TimeUnit.SECONDS).stream().noneMatch("hidden"::equals));
        }
        try (Admin admin = Admin.create(client("admin", "admin-secret"))) {
            admin.createTopics(List.of(new NewTopic("hidden", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            assertTrue(admin.listTopics().names().get(60, TimeUnit.SECONDS).contains("hidden"), "super user sees it");
        }
        try (Admin admin = Admin.create(client("alice", "alice-secret"))) {
            assertTrue(admin.listTopics().names().get(60, TimeUnit.SECONDS).stream().noneMatch("hidden"::equals),
                    "alice lists no topic she may not describe");
            ExecutionException refused = assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(new NewTopic("alices", 1, (short) 1))).all().get(60, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
        }
    }

    private static List<String> pollUntil(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (values.size() < count && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                values.add(new String(record.value().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
            }
        }
        assertEquals(count, values.size(), "records consumed");
        return values;
    }
}
