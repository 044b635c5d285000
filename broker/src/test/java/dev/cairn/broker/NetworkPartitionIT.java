package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes, each in its own network namespace on a private bridge ({@link NetworkNamespaces}); the
 * Kafka Java client runs in a fourth. While the default (idempotent, acks=all) producer writes, one broker is cut
 * off the network and later reconnected: writes continue on the majority, the isolated broker catches up
 * (every partition's segment bytes equal on all three), and every acknowledged record is read back exactly once
 * at its acknowledged offset. Needs root; elsewhere the test is skipped and says why.
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class NetworkPartitionIT {
    private static final String TOPIC = "partitioned";
    private static final int PARTITIONS = 3;
    private static final int BROKERS = 3;
    private static final int ISOLATED = 1;
    /** Acknowledged records before the cut, during it, and after healing. */
    private static final long ACKS_PER_PHASE = 5_000;
    private static final long PHASE_WAIT_SECONDS = 150;
    private static final long WORKLOAD_SECONDS_MAX = 360;

    @TempDir
    Path dir;
    private NetworkNamespaces network;
    private BrokerProcessCluster cluster;
    private final List<Process> workloads = new ArrayList<>();

    @BeforeEach
    void requireNamespaces() {
        Optional<String> reason = NetworkNamespaces.unavailableReason();
        if (reason.isPresent()) {
            System.err.println("NetworkPartitionIT SKIPPED: " + reason.get());
        }
        Assumptions.assumeTrue(reason.isEmpty(), () -> "NetworkPartitionIT skipped: " + reason.get());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Process workload : workloads) {
            workload.destroyForcibly();
            workload.waitFor(30, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
        if (network != null) {
            network.close();
        }
    }

    @Test
    void majorityKeepsWritingAndTheIsolatedBrokerCatchesUp() throws Exception {
        network = NetworkNamespaces.create(BROKERS);
        cluster = BrokerProcessCluster.inNamespaces(dir, network, BROKERS, Map.of("auto.create.topics.enable",
                "false", "broker.session.timeout.ms", "6000"));
        String bootstrap = cluster.bootstrap();
        Path ackFile = dir.resolve("acked.txt");
        Path stopFile = dir.resolve("stop");
        Process producer = workload("producer", "produce", bootstrap, TOPIC, Integer.toString(PARTITIONS),
                ackFile.toString(), stopFile.toString(), Long.toString(WORKLOAD_SECONDS_MAX));
        LongSupplier acks = () -> lineCount(ackFile);

        awaitAtLeast(acks, ACKS_PER_PHASE, "acknowledgements before the cut", producer);
        network.isolate(ISOLATED);
        long atCut = acks.getAsLong();
        awaitAtLeast(acks, atCut + ACKS_PER_PHASE, "acknowledgements while broker " + ISOLATED + " is cut off",
                producer);
        network.heal(ISOLATED);
        long atHeal = acks.getAsLong();
        awaitAtLeast(acks, atHeal + ACKS_PER_PHASE, "acknowledgements after healing", producer);
        Files.createFile(stopFile);
        assertTrue(producer.waitFor(PHASE_WAIT_SECONDS, TimeUnit.SECONDS), "the producer did not finish");
        assertEquals(0, producer.exitValue(), "producer failed:\n" + output("producer"));

        Map<Long, String> acked = readRecords(ackFile);
        awaitReplicasEqual();

        Path consumedFile = dir.resolve("consumed.txt");
        Process consumer = workload("consumer", "consume", bootstrap, TOPIC, Integer.toString(PARTITIONS),
                consumedFile.toString(), Long.toString(PHASE_WAIT_SECONDS));
        assertTrue(consumer.waitFor(PHASE_WAIT_SECONDS + 30, TimeUnit.SECONDS), "the consumer did not finish");
        assertEquals(0, consumer.exitValue(), "consumer failed:\n" + output("consumer"));
        verifyExactlyOnce(acked, consumedFile);
    }

    private Process workload(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(NetworkNamespaces.inNamespace(network.switchNamespace()));
        command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), PartitionWorkload.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".out").toFile()).start();
        workloads.add(process);
        return process;
    }

    private String output(String name) throws IOException {
        return Files.readString(dir.resolve(name + ".out"), StandardCharsets.UTF_8);
    }

    private void awaitAtLeast(LongSupplier count, long target, String what, Process producer) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PHASE_WAIT_SECONDS);
        while (count.getAsLong() < target) {
            assertTrue(producer.isAlive(), "the producer exited early:\n" + output("producer"));
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + target + " " + what + " (have "
                    + count.getAsLong() + ")");
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    /** Waits until every partition's segment files hold the same bytes on every broker. */
    private void awaitReplicasEqual() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PHASE_WAIT_SECONDS);
        while (true) {
            List<String> differing = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                String first = logChecksum(1, p);
                for (int broker = 2; broker <= BROKERS; broker++) {
                    String other = logChecksum(broker, p);
                    if (!first.equals(other)) {
                        differing.add(TOPIC + "-" + p + ": broker 1 " + first + ", broker " + broker + " " + other);
                    }
                }
            }
            if (differing.isEmpty()) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "replicas still differ: " + differing);
            TimeUnit.MILLISECONDS.sleep(500);
        }
    }

    /** Length and CRC32C of a partition's segment files on one broker, concatenated in offset order. */
    private String logChecksum(int broker, int partition) throws IOException {
        Path logDir = dir.resolve("broker-" + broker).resolve("logs").resolve(TOPIC + "-" + partition);
        if (!Files.isDirectory(logDir)) {
            return "no log";
        }
        CRC32C crc = new CRC32C();
        long length = 0;
        List<Path> segments;
        try (Stream<Path> files = Files.list(logDir)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        byte[] buffer = new byte[64 * 1024];
        for (Path segment : segments) {
            try (InputStream in = Files.newInputStream(segment)) {
                for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                    crc.update(buffer, 0, n);
                    length += n;
                }
            }
        }
        return length + " bytes/" + Long.toHexString(crc.getValue());
    }

    private static long lineCount(Path file) {
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    /** id -> "partition offset", failing on an id seen twice. */
    private static Map<Long, String> readRecords(Path file) throws IOException {
        Map<Long, String> records = new HashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] fields = line.trim().split(" ");
            if (fields.length != 3) {
                continue;   // a line the writer had not finished when the file was read
            }
            String previous = records.put(Long.parseLong(fields[0]), fields[1] + " " + fields[2]);
            assertEquals(null, previous, "record " + fields[0] + " appears twice in " + file.getFileName());
        }
        return records;
    }

    private static void verifyExactlyOnce(Map<Long, String> acked, Path consumedFile) throws IOException {
        Map<Long, String> consumed = readRecords(consumedFile);
        int[] counts = new int[PARTITIONS];
        Map<Integer, List<Long>> offsets = new HashMap<>();
        for (String position : consumed.values()) {
            String[] fields = position.split(" ");
            offsets.computeIfAbsent(Integer.parseInt(fields[0]), p -> new ArrayList<>())
                    .add(Long.parseLong(fields[1]));
        }
        for (Map.Entry<Integer, List<Long>> partition : offsets.entrySet()) {
            List<Long> sorted = partition.getValue().stream().sorted().toList();
            for (int i = 0; i < sorted.size(); i++) {
                assertEquals(i, sorted.get(i), "offsets of partition " + partition.getKey() + " are not dense");
            }
            counts[partition.getKey()] = sorted.size();
        }
        List<Long> missing = new ArrayList<>();
        for (Map.Entry<Long, String> record : acked.entrySet()) {
            String at = consumed.get(record.getKey());
            if (at == null) {
                missing.add(record.getKey());
            } else {
                assertEquals(record.getValue(), at, "record " + record.getKey() + " moved");
            }
        }
        assertTrue(missing.isEmpty(), missing.size() + " acknowledged records lost, e.g. "
                + missing.subList(0, Math.min(10, missing.size())));
        System.out.printf("NetworkPartitionIT: %d acknowledged, %d consumed, per partition %s%n", acked.size(),
                consumed.size(), java.util.Arrays.toString(counts));
    }
}
