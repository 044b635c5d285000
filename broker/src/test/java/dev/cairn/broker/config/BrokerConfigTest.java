package dev.cairn.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

    @Test
    void defaultsAreASingleNodeCluster() {
        BrokerConfig config = BrokerConfig.defaults();
        assertEquals(new HostPort("127.0.0.1", 9092), config.listener());
        assertEquals(config.listener(), config.advertisedListener());
        assertEquals(new HostPort("127.0.0.1", 9093), config.raftListener());
        assertEquals(List.of(new RaftVoter(1, new HostPort("127.0.0.1", 9093))), config.raftVoters());
        assertEquals(Path.of("./cairn-data"), config.dataDir());
        assertEquals(1, config.defaultReplicationFactor());
        assertTrue(config.autoCreateTopicsEnable());
    }

    /** DescribeConfigs tells a set key (STATIC_BROKER_CONFIG) from a default one by this. */
    @Test
    void setKeysAreExplicitWithTheirTextAndOthersGiveTheirDefault() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of("log.segment.bytes", " 2097152 "));
        assertTrue(config.isExplicit(BrokerConfig.LOG_SEGMENT_BYTES));
        assertEquals("2097152", config.text(BrokerConfig.LOG_SEGMENT_BYTES));
        assertEquals(false, config.isExplicit(BrokerConfig.LOG_RETENTION_MS));
        assertEquals("604800000", config.text(BrokerConfig.LOG_RETENTION_MS));
    }

    @Test
    void kafkaListenerSyntaxAndVotersParse() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of(
                "node.id", "2",
                "listeners", "PLAINTEXT://127.0.0.2:19092",
                "raft.listener", "127.0.0.2:19093",
                "raft.voters", "1@127.0.0.1:19093, 2@127.0.0.2:19093,3@127.0.0.3:19093",
                "default.replication.factor", "3"));
        assertEquals(new HostPort("127.0.0.2", 19092), config.listener());
        assertEquals(3, config.raftVoters().size());
        assertEquals(new RaftVoter(3, new HostPort("127.0.0.3", 19093)), config.raftVoters().get(2));
    }

    /** Several listeners (issue 21): names and ports distinct, each advertised by name or at its own address. */
    @Test
    void severalListenersParseWithTheirAdvertisedAddresses() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of(
                "listeners", "INTERNAL://127.0.0.1:9092, EXTERNAL://0.0.0.0:9094",
                "listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SSL",
                "advertised.listeners", "EXTERNAL://broker1.example.com:19094",
                "ssl.keystore.location", System.getProperty("java.home") + "/lib/security/cacerts"));
        assertEquals(List.of("INTERNAL", "EXTERNAL"), config.kafkaListeners().stream().map(KafkaListener::name)
                .toList());
        assertEquals(SecurityProtocol.SSL, config.kafkaListeners().get(1).protocol());
        assertEquals("INTERNAL", config.kafkaListener().name(), "the first is the default");
        assertEquals(Map.of("INTERNAL", HostPort.parse("127.0.0.1:9092"),
                "EXTERNAL", HostPort.parse("broker1.example.com:19094")), config.advertisedListeners());
        assertEquals(HostPort.parse("127.0.0.1:9092"), config.advertisedListener());

        for (Map<String, String> bad : List.of(
                Map.of("listeners", "PLAINTEXT://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9094"),
                Map.of("listeners", "A://127.0.0.1:9092,B://127.0.0.1:9092",
                        "listener.security.protocol.map", "A:PLAINTEXT,B:PLAINTEXT"),
                Map.of("listeners", "A://127.0.0.1:9092,B://127.0.0.1:9094",
                        "listener.security.protocol.map", "A:PLAINTEXT,B:PLAINTEXT",
                        "advertised.listeners", "C://h:1"),
                Map.of("listeners", "A://127.0.0.1:9092,B://127.0.0.1:9094",
                        "listener.security.protocol.map", "A:PLAINTEXT,B:PLAINTEXT", "advertised.listeners", "h:1"),
                Map.of("listeners", "A://127.0.0.1:9092,B://127.0.0.1:9094",
                        "listener.security.protocol.map", "A:PLAINTEXT,B:PLAINTEXT", "metrics.port", "9094"))) {
            assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(bad), bad.toString());
        }
    }

    @Test
    void aVoterPortForThisNodeThatDiffersFromRaftListenerIsWarnedAbout() {
        assertEquals(List.of(), BrokerConfig.defaults().warnings());
        // The mistake that happens: raft.voters names a port, and raft.listener was left at its default.
        BrokerConfig forgotten = BrokerConfig.fromMap(Map.of("raft.voters", "1@127.0.0.1:19093"));
        assertEquals(1, forgotten.warnings().size());
        String warning = forgotten.warnings().get(0);
        assertTrue(warning.contains("127.0.0.1:19093") && warning.contains("raft.listener=127.0.0.1:9093"), warning);
        // Another host on the same port (an advertised name, a container's address) is normal.
        assertEquals(List.of(), BrokerConfig.fromMap(Map.of("raft.listener", "0.0.0.0:19093",
                "raft.voters", "1@broker-1:19093,2@broker-2:19093")).warnings());
    }

    @Test
    void requestBytesBudgetIsPositiveOrUnbounded() {
        assertEquals(268_435_456L, BrokerConfig.fromMap(Map.of()).queuedMaxRequestBytes());
        assertEquals(-1L, BrokerConfig.fromMap(Map.of("queued.max.request.bytes", "-1")).queuedMaxRequestBytes());
        ConfigException zero = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("queued.max.request.bytes", "0")));
        assertTrue(zero.getMessage().contains("queued.max.request.bytes"), zero.getMessage());
        assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("num.io.threads", "0")));
    }

    @Test
    void readmeDocumentsEveryKeyWithItsDefault() throws java.io.IOException {
        String readme = java.nio.file.Files.readString(Path.of("..", "README.md"));
        for (ConfigKey<?> key : BrokerConfig.KEYS) {
            assertTrue(readme.contains("| `" + key.name() + "` |"), "README.md documents " + key.name());
        }
    }

    @Test
    void sampleConfigDocumentsEveryKeyAndStartsTheDefaults() throws Exception {
        String sample = java.nio.file.Files.readString(Path.of("..", "config", "broker.properties"));
        for (ConfigKey<?> key : BrokerConfig.KEYS) {
            assertTrue(sample.contains("#" + key.name() + "="), "config/broker.properties documents " + key.name());
        }
        java.util.Properties properties = new java.util.Properties();
        properties.load(new java.io.StringReader(sample));
        assertTrue(properties.isEmpty(), "every line is commented out, so the file starts the defaults");
        // Uncommented as they stand, the documented defaults are valid and are the defaults.
        java.util.Map<String, String> uncommented = new java.util.HashMap<>();
        for (String line : sample.split("\n")) {
            if (line.matches("#[a-z][a-z.]*=.*")) {
                uncommented.put(line.substring(1, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        assertEquals(BrokerConfig.KEYS.size(), uncommented.size());
        BrokerConfig parsed = BrokerConfig.fromMap(uncommented);
        BrokerConfig defaults = BrokerConfig.defaults();
        // Every value equals the default; only the record of which keys were set differs (all of them here).
        for (java.lang.reflect.RecordComponent component : BrokerConfig.class.getRecordComponents()) {
            if (!component.getName().equals("explicitText")) {
                assertEquals(component.getAccessor().invoke(defaults), component.getAccessor().invoke(parsed),
                        component.getName());
            }
        }
        assertEquals(uncommented.keySet(), parsed.explicitText().keySet());
        assertEquals(java.util.Map.of(), defaults.explicitText());
    }

    /**
     * Kafka's per-listener overrides (issue 21): listener.name.NAME.ssl.* and .sasl.enabled.mechanisms replace the
     * broker-wide key on that listener only; an override for a listener not in listeners is refused, and a bad
     * overridden value is reported under the key that set it.
     */
    @Test
    void aListenerMayOverrideTlsAndSaslKeysForItself() {
        String cacerts = System.getProperty("java.home") + "/lib/security/cacerts";
        Map<String, String> base = Map.of(
                "listeners", "INTERNAL://127.0.0.1:9092,EXTERNAL://127.0.0.1:9094,CLIENTS://127.0.0.1:9096",
                "listener.security.protocol.map", "INTERNAL:SSL,EXTERNAL:SASL_SSL,CLIENTS:SASL_PLAINTEXT",
                "ssl.keystore.location", cacerts,
                "listener.name.internal.ssl.client.auth", "required",
                "listener.name.internal.ssl.truststore.location", cacerts,
                "listener.name.external.ssl.enabled.protocols", "TLSv1.3",
                "listener.name.clients.sasl.enabled.mechanisms", "PLAIN",
                "listener.name.clients.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"b\";");
        BrokerConfig config = BrokerConfig.fromMap(base);
        KafkaListener internal = config.kafkaListeners().get(0);
        KafkaListener external = config.kafkaListeners().get(1);
        KafkaListener clients = config.kafkaListeners().get(2);

        assertEquals(TlsSettings.ClientAuth.REQUIRED, TlsSettings.of(config, internal).clientAuth());
        assertEquals(Path.of(cacerts), TlsSettings.of(config, internal).truststore());
        assertEquals(List.of("TLSv1.2", "TLSv1.3"), TlsSettings.of(config, internal).protocols());
        assertEquals(TlsSettings.ClientAuth.NONE, TlsSettings.of(config, external).clientAuth());
        assertEquals(null, TlsSettings.of(config, external).truststore());
        assertEquals(List.of("TLSv1.3"), TlsSettings.of(config, external).protocols());
        assertEquals(List.of("SCRAM-SHA-256", "SCRAM-SHA-512"), SaslSettings.of(config, external).mechanisms());
        assertEquals(List.of("PLAIN"), SaslSettings.of(config, clients).mechanisms());
        assertEquals("listener.name.internal.ssl.client.auth",
                config.keyName(SecurityKeys.SSL_CLIENT_AUTH, internal));
        assertEquals("ssl.client.auth", config.keyName(SecurityKeys.SSL_CLIENT_AUTH, external));

        Map<String, String> unknownListener = new java.util.HashMap<>(base);
        unknownListener.put("listener.name.extrnal.ssl.client.auth", "required");
        ConfigException typo = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(unknownListener));
        assertTrue(typo.getMessage().contains("listener.name.extrnal.ssl.client.auth"), typo.getMessage());

        Map<String, String> badValue = new java.util.HashMap<>(base);
        badValue.put("listener.name.external.ssl.client.auth", "sometimes");
        ConfigException bad = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(badValue));
        assertTrue(bad.getMessage().contains("listener.name.external.ssl.client.auth=sometimes"), bad.getMessage());

        Map<String, String> noJaas = new java.util.HashMap<>(base);
        noJaas.put("listener.name.external.sasl.enabled.mechanisms", "PLAIN");
        ConfigException plain = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(noJaas));
        assertTrue(plain.getMessage().contains("listener.name.external.plain.sasl.jaas.config"), plain.getMessage());

        Map<String, String> notAKey = new java.util.HashMap<>(base);
        notAKey.put("listener.name.internal.ssl.keystore.colour", "blue");
        assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(notAKey));
    }

    @Test
    void badValuesAreNamed() {
        ConfigException range = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("num.partitions", "0")));
        assertTrue(range.getMessage().contains("num.partitions"), range.getMessage());

        ConfigException unknown = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("log.segment.byte", "100")));
        assertTrue(unknown.getMessage().contains("log.segment.byte"), unknown.getMessage());

        ConfigException relation = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("message.max.bytes", "2000000", "log.segment.bytes", "1048576")));
        assertTrue(relation.getMessage().contains("message.max.bytes=2000000"), relation.getMessage());
        assertTrue(relation.getMessage().contains("log.segment.bytes=1048576"), relation.getMessage());

        // Not among raft.voters, a broker joins their cluster: the others must reach it at its own raft.listener.
        ConfigException voters = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("node.id", "4", "raft.voters", "1@127.0.0.1:9093")));
        assertTrue(voters.getMessage().contains("node.id=4") && voters.getMessage().contains("a voter's address"),
                voters.getMessage());
        ConfigException wildcard = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(Map.of(
                "node.id", "4", "raft.voters", "1@127.0.0.1:9093", "raft.listener", "0.0.0.0:9094")));
        assertTrue(wildcard.getMessage().contains("reachable host"), wildcard.getMessage());
        BrokerConfig joining = BrokerConfig.fromMap(Map.of("node.id", "4", "raft.voters", "1@127.0.0.1:9093",
                "raft.listener", "127.0.0.1:9094"));
        assertTrue(joining.joinsCluster());
        assertTrue(!BrokerConfig.defaults().joinsCluster());

        ConfigException rf = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("default.replication.factor", "3")));
        assertTrue(rf.getMessage().contains("default.replication.factor=3"), rf.getMessage());

        ConfigException metricsPort = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("metrics.port", "9092")));
        assertTrue(metricsPort.getMessage().contains("metrics.port=9092"), metricsPort.getMessage());
        assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(Map.of("metrics.port", "-2")));
        assertEquals(-1, BrokerConfig.defaults().metricsPort(), "metrics are off unless asked for");

        // Kafka's transactional.id.expiration.ms: 7 days by default, at least 1 ms.
        assertEquals("604800000", BrokerConfig.defaults().text(TransactionKeys.TRANSACTIONAL_ID_EXPIRATION_MS));
        for (String key : List.of("transactional.id.expiration.ms",
                "transactions.remove.expired.transaction.cleanup.interval.ms")) {
            ConfigException expiration = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(Map.of(key,
                    "0")));
            assertTrue(expiration.getMessage().contains(key), expiration.getMessage());
        }
        assertEquals(3_600_000, TransactionKeys.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS.parse(
                BrokerConfig.fromMap(Map.of("transactional.id.expiration.ms", "60000"))
                        .text(TransactionKeys.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS)));

        assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(Map.of("listeners", "SSL://h:1")));
        assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(Map.of("listeners", "host-without-port")));
    }
}
