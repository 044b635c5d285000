package dev.cairn.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** raft.ssl.*: off by default; when on, both stores are required and checked, and no message shows a password. */
class RaftTlsSettingsTest {
    private static final String SECRET = "very-secret-password";

    @TempDir
    Path dir;

    private Map<String, String> enabled() throws Exception {
        Map<String, String> values = new HashMap<>();
        values.put("raft.ssl.enabled", "true");
        values.put("raft.ssl.keystore.location", Files.writeString(dir.resolve("broker.p12"), "x").toString());
        values.put("raft.ssl.keystore.password", SECRET);
        values.put("raft.ssl.truststore.location", Files.writeString(dir.resolve("trust.p12"), "x").toString());
        values.put("raft.ssl.truststore.password", SECRET);
        return values;
    }

    private static String refusal(Map<String, String> values) {
        return assertThrows(ConfigException.class, () -> RaftTlsSettings.of(BrokerConfig.fromMap(values)))
                .getMessage();
    }

    @Test
    void offByDefault() {
        assertEquals(Optional.empty(), RaftTlsSettings.of(BrokerConfig.defaults()));
        assertTrue(BrokerConfig.KEYS.containsAll(RaftTlsKeys.KEYS));
        assertTrue(RaftTlsKeys.RAFT_SSL_KEYSTORE_PASSWORD.sensitive() && RaftTlsKeys.RAFT_SSL_KEY_PASSWORD.sensitive()
                && RaftTlsKeys.RAFT_SSL_TRUSTSTORE_PASSWORD.sensitive());
    }

    @Test
    void enabledReadsBothStores() throws Exception {
        Map<String, String> values = enabled();
        values.put("raft.ssl.keystore.type", "pem");
        RaftTlsSettings tls = RaftTlsSettings.of(BrokerConfig.fromMap(values)).orElseThrow();
        assertEquals("PEM", tls.keystoreType());
        assertEquals("PKCS12", tls.truststoreType());
        assertEquals(SECRET, tls.effectiveKeyPassword(), "the key password falls back to the keystore's");
        assertFalse(tls.toString().contains(SECRET), tls.toString());
    }

    @Test
    void bothStoresAreRequiredAndMustBeReadable() throws Exception {
        Map<String, String> noKeystore = enabled();
        noKeystore.remove("raft.ssl.keystore.location");
        assertTrue(refusal(noKeystore).contains("raft.ssl.keystore.location must name"));
        Map<String, String> noTruststore = enabled();
        noTruststore.remove("raft.ssl.truststore.location");
        assertTrue(refusal(noTruststore).contains("raft.ssl.truststore.location must name"));
        Map<String, String> missing = enabled();
        missing.put("raft.ssl.truststore.location", dir.resolve("nowhere.p12").toString());
        assertTrue(refusal(missing).contains("raft.ssl.truststore.location=" + dir.resolve("nowhere.p12")
                + " is not a readable file"));
        Map<String, String> badType = enabled();
        badType.put("raft.ssl.truststore.type", "BKS");
        String message = refusal(badType);
        assertTrue(message.contains("raft.ssl.truststore.type=BKS is not one of"), message);
        for (Map<String, String> values : java.util.List.of(noKeystore, noTruststore, missing, badType)) {
            assertFalse(refusal(values).contains(SECRET));
        }
    }

    @Test
    void enabledMustBeTrueOrFalse() throws Exception {
        Map<String, String> values = enabled();
        values.put("raft.ssl.enabled", "yes");
        assertTrue(refusal(values).contains("raft.ssl.enabled"));
    }
}
