package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker with two Kafka listeners (issue 21), as a Kafka deployment has one inside a network and one outside:
 * INTERNAL without security and EXTERNAL with SASL/PLAIN, each on its own port and advertising its own address.
 * Clients on either listener are told that listener's endpoint (Metadata, DescribeCluster, FindCoordinator through a
 * consumer group) and never the other's; a record produced on one is consumed on the other; the EXTERNAL listener
 * refuses a client that does not log in.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MultipleListenersIT {
    private static final String PASSWORD = "ext-secret";
    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dataDir;

    @Test
    void eachListenerAdvertisesItsOwnEndpointAndKeepsItsSecurity() throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "INTERNAL://127.0.0.1:0,EXTERNAL://127.0.0.1:0");
        settings.put("listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT");
        settings.put("sasl.enabled.mechanisms", "PLAIN");
        settings.put("listener.name.external.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_app=\"" + PASSWORD + "\";");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, settings)) {
            int internal = broker.broker().kafkaPort("INTERNAL");
            int external = broker.broker().kafkaPort("EXTERNAL");
            assertTrue(internal != external, internal + " and " + external);
            Properties internalClient = client(internal);
            Properties externalClient = sasl(client(external));

            try (Admin admin = Admin.create(internalClient)) {
                admin.createTopics(List.of(new NewTopic("both-ways", 2, (short) 1))).all()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertEquals(List.of(internal), ports(admin.describeCluster().nodes()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS)));
            }
            try (Admin admin = Admin.create(externalClient)) {
                assertEquals(List.of(external), ports(admin.describeCluster().nodes()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS)));
            }

            // Produced inside, consumed outside through a consumer group (FindCoordinator names EXTERNAL's port).
            Properties producer = new Properties();
            producer.putAll(internalClient);
            producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> out = new KafkaProducer<>(producer)) {
                for (int i = 0; i < 20; i++) {
                    out.send(new ProducerRecord<>("both-ways", "k" + i, "v" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
                }
            }
            Properties consumer = new Properties();
            consumer.putAll(externalClient);
            consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "outside");
            consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> in = new KafkaConsumer<>(consumer)) {
                in.subscribe(List.of("both-ways"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (values.size() < 20) {
                    assertTrue(System.nanoTime() < deadline, "consumed " + values.size() + " of 20");
                    for (ConsumerRecord<String, String> record : in.poll(Duration.ofMillis(200))) {
                        values.add(record.value());
                    }
                }
                in.commitSync(Duration.ofSeconds(WAIT_SECONDS));
            }
            assertEquals(20, values.size());

            // EXTERNAL still requires a login; INTERNAL never asked for one.
            Properties anonymous = client(external);
            anonymous.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
            anonymous.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
            anonymous.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule "
                    + "required username=\"app\" password=\"wrong\";");
            try (Admin admin = Admin.create(anonymous)) {
                ExecutionException refused = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(WAIT_SECONDS, TimeUnit.SECONDS));
                assertInstanceOf(SaslAuthenticationException.class, refused.getCause());
            }
        }
    }

    /**
     * Per-listener SASL mechanisms (listener.name.NAME.sasl.enabled.mechanisms): the ADMIN listener serves PLAIN only,
     * APPS the broker-wide SCRAM-SHA-512. A SCRAM user created through ADMIN logs in on APPS; PLAIN is refused on APPS
     * as a mechanism it does not serve, and SCRAM on ADMIN likewise.
     */
    @Test
    void eachListenerOffersItsOwnSaslMechanisms() throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "ADMIN://127.0.0.1:0,APPS://127.0.0.1:0");
        settings.put("listener.security.protocol.map", "ADMIN:SASL_PLAINTEXT,APPS:SASL_PLAINTEXT");
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        settings.put("listener.name.admin.sasl.enabled.mechanisms", "PLAIN");
        settings.put("listener.name.admin.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_app=\"" + PASSWORD + "\";");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, settings)) {
            int adminPort = broker.broker().kafkaPort("ADMIN");
            int appsPort = broker.broker().kafkaPort("APPS");
            try (Admin admin = Admin.create(sasl(client(adminPort)))) {
                admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                        "alice", new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096), "alice-secret")))
                        .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            Properties scram = scram(client(appsPort));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            List<Integer> seen = null;
            // The credential is a metadata entry; a login may come before this broker applied it.
            while (seen == null) {
                try (Admin admin = Admin.create(scram)) {
                    seen = ports(admin.describeCluster().nodes().get(WAIT_SECONDS, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    assertInstanceOf(SaslAuthenticationException.class, e.getCause());
                    assertTrue(System.nanoTime() < deadline, "alice never logged in on APPS: " + e.getCause());
                }
            }
            assertEquals(List.of(appsPort), seen);

            try (Admin admin = Admin.create(sasl(client(appsPort)))) {
                ExecutionException plainOnApps = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(WAIT_SECONDS, TimeUnit.SECONDS));
                assertInstanceOf(org.apache.kafka.common.errors.UnsupportedSaslMechanismException.class,
                        plainOnApps.getCause());
            }
            try (Admin admin = Admin.create(scram(client(adminPort)))) {
                ExecutionException scramOnAdmin = assertThrows(ExecutionException.class,
                        () -> admin.describeCluster().clusterId().get(WAIT_SECONDS, TimeUnit.SECONDS));
                assertInstanceOf(org.apache.kafka.common.errors.UnsupportedSaslMechanismException.class,
                        scramOnAdmin.getCause());
            }
        }
    }

    private static Properties scram(Properties props) {
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        props.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"alice\" password=\"alice-secret\";");
        return props;
    }

    private static List<Integer> ports(Collection<Node> nodes) {
        return nodes.stream().map(Node::port).toList();
    }

    private static Properties client(int port) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        return props;
    }

    private static Properties sasl(Properties props) {
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        props.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"app\" password=\"" + PASSWORD + "\";");
        return props;
    }
}
