package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.TestCertificates;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between Cairn Raft engines ({@link RaftFrameTls}): a broker with a certificate of the cluster's CA
 * delivers frames; a plaintext peer, a peer with another CA's certificate, and a broker talking to a server whose
 * certificate names another host deliver none.
 */
@Timeout(120)
class RaftFrameTlsTest {
    /** How long the refused senders keep trying, after the accepted one got through. */
    private static final int REFUSED_ROUNDS = 20;
    private static final long ROUND_MS = 100;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    static Path certDir;
    @TempDir
    static Path otherCertDir;
    private static TestCertificates certs;
    private static TestCertificates otherCa;
    private static Path elsewhere;
    private final List<RaftFrameTransport> transports = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        certs = TestCertificates.create(certDir);
        otherCa = TestCertificates.create(otherCertDir);
        elsewhere = certs.signedKeystore("elsewhere", "CN=elsewhere.invalid,O=cairn-test", "dns:elsewhere.invalid");
    }

    @AfterEach
    void stop() {
        transports.forEach(RaftFrameTransport::close);
    }

    private static RaftFrameTls tls(Path keystore, Path truststore) throws Exception {
        char[] password = TestCertificates.PASSWORD.toCharArray();
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(keystore, password), password);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load(truststore, password));
        return RaftFrameTls.of(keys, trust);
    }

    private static KeyStore load(Path file, char[] password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store;
    }

    private RaftFrameTransport receiver(List<ByteBuffer> received, RaftFrameTls tls) throws Exception {
        RaftFrameTransport transport = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                peer -> null, received::add, 1, tls);
        transports.add(transport);
        return transport;
    }

    private RaftFrameTransport sender(RaftFrameTransport to, RaftFrameTls tls) throws Exception {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", to.port());
        RaftFrameTransport transport = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                peer -> peer == 1 ? address : null, frame -> { }, 1, tls);
        transports.add(transport);
        return transport;
    }

    private static ByteBuffer frame(int sender) {
        return ByteBuffer.allocate(8).putInt(0xCA1F_0100).putInt(sender).flip();
    }

    private static Set<Integer> senders(List<ByteBuffer> received) {
        return received.stream().map(frame -> frame.getInt(4)).collect(Collectors.toSet());
    }

    @Test
    void onlyBrokersOfTheClusterCaDeliverFrames() throws Exception {
        List<ByteBuffer> received = new CopyOnWriteArrayList<>();
        RaftFrameTransport server = receiver(received, tls(certs.brokerKeystore(), certs.truststore()));
        List<RaftFrameTransport> senders = List.of(
                sender(server, tls(certs.brokerKeystore(), certs.truststore())),   // 0: a member
                sender(server, null),                                               // 1: plaintext
                sender(server, tls(otherCa.brokerKeystore(), certs.truststore()))); // 2: another CA's certificate
        long deadline = System.nanoTime() + WAIT_NS;
        while (!senders(received).contains(0) && System.nanoTime() < deadline) {
            for (int i = 0; i < senders.size(); i++) {
                senders.get(i).trySend(1, frame(i));
            }
            TimeUnit.MILLISECONDS.sleep(ROUND_MS);
        }
        assertTrue(senders(received).contains(0), "a broker of the cluster's CA delivers its frames");
        for (int round = 0; round < REFUSED_ROUNDS; round++) {
            for (int i = 1; i < senders.size(); i++) {
                senders.get(i).trySend(1, frame(i));
            }
            TimeUnit.MILLISECONDS.sleep(ROUND_MS);
        }
        assertEquals(Set.of(0), senders(received), "nothing from the plaintext peer or another CA's");
    }

    @Test
    void aBrokerRefusesAServerWhoseCertificateIsNotForItsAddressOrNotOfItsCa() throws Exception {
        List<ByteBuffer> received = new CopyOnWriteArrayList<>();
        RaftFrameTransport wrongHost = receiver(received, tls(elsewhere, certs.truststore()));
        RaftFrameTransport wrongCa = receiver(received, tls(otherCa.brokerKeystore(), certs.truststore()));
        RaftFrameTransport toWrongHost = sender(wrongHost, tls(certs.brokerKeystore(), certs.truststore()));
        RaftFrameTransport toWrongCa = sender(wrongCa, tls(certs.brokerKeystore(), certs.truststore()));
        for (int round = 0; round < REFUSED_ROUNDS; round++) {
            toWrongHost.trySend(1, frame(1));
            toWrongCa.trySend(1, frame(2));
            TimeUnit.MILLISECONDS.sleep(ROUND_MS);
        }
        assertEquals(Set.of(), senders(received), "the connecting broker checks the server's certificate and host");
    }
}
