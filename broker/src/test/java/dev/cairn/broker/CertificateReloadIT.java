package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewed broker certificate takes effect without a restart (issue 21): the keystore file is replaced while the
 * broker runs, the next TLS handshakes present the new certificate, a kafka-clients Admin still connects, and a
 * keystore replaced by garbage leaves the last good certificate in place.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CertificateReloadIT {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    @Test
    void aReplacedKeystoreIsServedToNewConnections() throws Exception {
        TestCertificates certs = TestCertificates.create(Files.createDirectories(dir.resolve("certs")));
        Path rotated = certs.signedKeystore("rotated", "CN=localhost,O=cairn-rotated", "dns:localhost,ip:127.0.0.1");
        Path live = dir.resolve("broker-live.p12");
        Files.copy(certs.brokerKeystore(), live);
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "SSL://127.0.0.1:0");
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", live.toString());
        settings.put("ssl.keystore.password", TestCertificates.PASSWORD);
        settings.put("ssl.reload.check.interval.ms", "200");
        try (BrokerFixture broker = BrokerFixture.start(dir.resolve("data"), settings)) {
            int port = Integer.parseInt(broker.bootstrap().substring(broker.bootstrap().lastIndexOf(':') + 1));
            assertEquals("CN=localhost,O=cairn-test", serverSubject(port));

            replace(rotated, live);
            awaitSubject(port, "CN=localhost,O=cairn-rotated");
            try (Admin admin = Admin.create(client(broker, certs))) {
                assertEquals(1, admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).size());
            }

            // A keystore that cannot be read (here: not PKCS12 at all) keeps the last good certificate.
            Path garbage = dir.resolve("garbage.p12");
            Files.writeString(garbage, "not a keystore");
            replace(garbage, live);
            // Several reload checks (every 200 ms) pass while it stays broken; each handshake still works.
            for (int handshake = 0; handshake < 8; handshake++) {
                assertEquals("CN=localhost,O=cairn-rotated", serverSubject(port));
                TimeUnit.MILLISECONDS.sleep(150);
            }
        }
    }

    /** Replaces {@code target} in one step, as certificate managers do (write beside, then rename). */
    private static void replace(Path source, Path target) throws IOException {
        Path beside = target.resolveSibling(target.getFileName() + ".new");
        Files.copy(source, beside, StandardCopyOption.REPLACE_EXISTING);
        Files.move(beside, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void awaitSubject(int port, String subject) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        String seen = serverSubject(port);
        while (!subject.equals(seen)) {
            assertTrue(System.currentTimeMillis() < deadline, "still served " + seen + ", expected " + subject);
            TimeUnit.MILLISECONDS.sleep(100);
            seen = serverSubject(port);
        }
    }

    /** The subject of the certificate the broker presents in a fresh handshake. */
    private static String serverSubject(int port) throws IOException, GeneralSecurityException {
        X509Certificate[][] presented = new X509Certificate[1][];
        TrustManager recorder = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                presented[0] = chain;
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {recorder}, new SecureRandom());
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
        }
        return presented[0][0].getSubjectX500Principal().getName();
    }

    private static Properties client(BrokerFixture broker, TestCertificates certs) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        props.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.truststore().toString());
        props.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        return props;
    }
}
