package dev.cairn.client;

import dev.cairn.broker.BrokerFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/**
 * Apache Kafka 4.4 in KRaft mode (one combined broker and controller) in a child JVM, for the scenarios that must
 * also pass against real Kafka. Its classes come from this test JVM's class path, which the {@code kafka-it}
 * profile of client/pom.xml extends with the Kafka server jars. The storage is formatted first (StorageTool), the
 * ports are free loopback ports picked now, and {@link #close()} ends exactly the process this started.
 */
final class KafkaBrokerProcess implements BrokerUnderTest {
    /** Set by the kafka-it profile; without it the Kafka scenarios are skipped. */
    static final String ENABLED_PROPERTY = "cairn.kafka.it";
    private static final long FORMAT_TIMEOUT_MS = 60_000;
    private static final long START_TIMEOUT_MS = 90_000;
    private static final long STOP_TIMEOUT_MS = 30_000;

    private final Process process;
    private final int port;

    private KafkaBrokerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static boolean enabled() {
        return Boolean.getBoolean(ENABLED_PROPERTY);
    }

    static KafkaBrokerProcess start(Path dir, int partitions) throws Exception {
        int port = BrokerFixture.freePort();
        int controllerPort = BrokerFixture.freePort();
        Path config = dir.resolve("kafka.properties");
        Files.write(config, List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=" + partitions,
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0"));
        Process format = java(dir.resolve("kafka-format.log"), "kafka.tools.StorageTool", "format", "-t",
                Uuid.randomUuid().toString(), "-c", config.toString());
        if (!format.waitFor(FORMAT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            format.destroyForcibly();
            throw new IOException("Kafka storage format did not finish within " + FORMAT_TIMEOUT_MS + " ms");
        }
        if (format.exitValue() != 0) {
            throw new IOException("Kafka storage format failed: " + Files.readString(dir.resolve("kafka-format.log")));
        }
        KafkaBrokerProcess kafka = new KafkaBrokerProcess(java(dir.resolve("kafka.log"), "kafka.Kafka",
                config.toString()), port);
        kafka.awaitListening(dir.resolve("kafka.log"));
        return kafka;
    }

    private static Process java(Path log, String mainClass, String... args) throws IOException {
        Path javaBinary = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>(List.of(javaBinary.toString(), "-Xmx768m",
                "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private void awaitListening(Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("Kafka exited with " + process.exitValue() + ": " + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return;
            } catch (IOException notYet) {
                process.waitFor(200, TimeUnit.MILLISECONDS);
            }
        }
        close();
        throw new IOException("Kafka did not listen on " + port + " within " + START_TIMEOUT_MS + " ms");
    }

    @Override
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public String toString() {
        return "Apache Kafka at " + bootstrap();
    }
}
