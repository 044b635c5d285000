package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link ClusterCrashIT} with Raft between the brokers over mutual TLS (raft.ssl.*): the same kill -9s of a partition
 * leader and of another broker, the same exactly-once and dense-offset checks, while every Raft connection a restarted
 * broker makes or takes is a new TLS handshake.
 */
class TlsClusterCrashIT extends ClusterCrashIT {
    @Override
    Map<String, String> extraSettings() throws Exception {
        return RaftTlsIT.raftTls(TestCertificates.create(Files.createDirectories(dir.resolve("certs"))));
    }

    /** Runs before ClusterCrashIT stops the brokers: each one's (last) log says its Raft traffic was TLS. */
    @AfterEach
    void raftTrafficWasTls() throws IOException {
        for (int id = 1; id <= 3; id++) {
            String log = Files.readString(dir.resolve("broker-" + id + ".log"), StandardCharsets.UTF_8);
            assertTrue(log.contains("Raft traffic between brokers: TLS with mutual authentication"),
                    "broker " + id + " ran Raft over TLS");
        }
    }
}
