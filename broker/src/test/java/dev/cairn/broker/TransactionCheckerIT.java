package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20, acceptance 3: a transaction checker in the style of Jepsen's Kafka workload. Transactional producers
 * ({@link TransactionWorkload}, in processes of their own) run transactions over several partitions of a topic at
 * RF=3, each committed or aborted, while faults hit the cluster: brokers killed with SIGKILL and restarted in turn,
 * or cut off the network in turn (each broker in a network namespace of its own, {@link NetworkNamespaces}), and in
 * both runs producer processes killed with SIGKILL and restarted (their transactional ids come back under a new
 * session, which fences the old one and aborts what it left open). Every transaction's outcome as its producer learnt
 * it is recorded; a final read with read_committed then counts the anomalies of {@link TransactionHistory}, and
 * every count must be zero. The same read with read_uncommitted must show aborted records (the checker sees what it
 * looks for). {@code -Dtxn.checker.seconds} sets the length of each faulty phase (default 30).
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class TransactionCheckerIT {
    private static final String TOPIC = "txn-check";
    private static final int PARTITIONS = 6;
    private static final int WORKLOADS = 2;
    private static final int PRODUCERS_PER_WORKLOAD = 2;
    private static final long WAIT_SECONDS = 240;
    private static final long FAULT_SECONDS = Long.getLong("txn.checker.seconds", 30);
    /** A fault lasts this long, then the cluster has this long to recover before the next one. */
    private static final long FAULT_MS = 6_000;
    private static final long RECOVERY_MS = 4_000;

    @TempDir
    Path dir;
    private BrokerProcessCluster cluster;
    private NetworkNamespaces network;
    private final List<Process> workloads = new ArrayList<>();
    private final List<Process> readers = new ArrayList<>();
    private final int[] incarnations = new int[WORKLOADS];

    @AfterEach
    void stop() throws Exception {
        for (Process workload : workloads) {
            workload.destroyForcibly();
            workload.waitFor(30, TimeUnit.SECONDS);
        }
        for (Process workload : readers) {
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
    void noAnomaliesWhileBrokersAndProducersAreKilled() throws Exception {
        cluster = BrokerProcessCluster.onLoopback(dir, 3, Map.of("default.replication.factor", "3"));
        check("broker kills", List.of(), victim -> {
            cluster.broker(victim).kill();
            TimeUnit.MILLISECONDS.sleep(FAULT_MS);
            cluster.broker(victim).start();
        });
    }

    @Test
    void noAnomaliesWhileTheNetworkIsCut() throws Exception {
        Optional<String> reason = NetworkNamespaces.unavailableReason();
        if (reason.isPresent()) {
            System.err.println("TransactionCheckerIT network cuts SKIPPED: " + reason.get());
        }
        Assumptions.assumeTrue(reason.isEmpty(), () -> "network cuts skipped: " + reason.get());
        network = NetworkNamespaces.create(3);
        cluster = BrokerProcessCluster.inNamespaces(dir, network, 3, Map.of("default.replication.factor", "3",
                "broker.session.timeout.ms", "6000"));
        check("network cuts", NetworkNamespaces.inNamespace(network.switchNamespace()), victim -> {
            network.isolate(victim + 1);
            TimeUnit.MILLISECONDS.sleep(FAULT_MS);
            network.heal(victim + 1);
        });
    }

    /** A fault applied to broker {@code victim} (0-based), ended before it returns. */
    private interface Fault {
        void apply(int victim) throws Exception;
    }

    private void check(String faults, List<String> launcher, Fault fault) throws Exception {
        Path stopFile = dir.resolve("stop");
        for (int w = 0; w < WORKLOADS; w++) {
            startWorkload(launcher, w, stopFile);
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(FAULT_SECONDS);
        for (int round = 0; System.nanoTime() < end; round++) {
            TimeUnit.MILLISECONDS.sleep(RECOVERY_MS);
            fault.apply(round % cluster.size());
            // Every other round a producer process dies too, mid-transaction as likely as not.
            if (round % 2 == 1) {
                int w = (round / 2) % WORKLOADS;
                workloads.get(w).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                startWorkload(launcher, w, stopFile);
            }
        }
        Files.createFile(stopFile);
        for (int w = 0; w < WORKLOADS; w++) {
            assertTrue(workloads.get(w).waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "workload " + w + " did not stop");
        }
        TransactionHistory history = TransactionHistory.read(historyFiles());
        Path committedRead = read(launcher, "read_committed");
        Path uncommittedRead = read(launcher, "read_uncommitted");
        Map<String, Integer> anomalies = history.check(committedRead);
        int abortedSeenUncommitted = history.abortedSeen(uncommittedRead);
        long committed = history.count(TransactionHistory.COMMITTED);
        long aborted = history.count(TransactionHistory.ABORTED);
        System.out.println("TransactionCheckerIT: " + history.transactions() + " transactions (" + committed
                + " committed, " + aborted + " aborted, " + history.count(TransactionHistory.UNKNOWN)
                + " unknown) over " + FAULT_SECONDS + " s of " + faults + " and producer kills; anomalies "
                + anomalies + "; aborted transactions seen by read_uncommitted: " + abortedSeenUncommitted);
        assertTrue(committed > 0, "some transactions committed");
        assertTrue(aborted == 0 || abortedSeenUncommitted > 0, "read_uncommitted shows aborted records");
        assertEquals(Map.of("aborted read", 0, "torn transaction", 0, "lost write", 0, "duplicate", 0,
                "offset order", 0), anomalies);
    }

    private List<Path> historyFiles() {
        List<Path> files = new ArrayList<>();
        for (int w = 0; w < WORKLOADS; w++) {
            files.add(dir.resolve("history-" + w + ".txt"));
        }
        return files;
    }

    /** Starts workload {@code w}, or restarts it under its next incarnation (same transactional ids). */
    private void startWorkload(List<String> launcher, int w, Path stopFile) throws IOException {
        int incarnation = incarnations[w]++;
        Process process = java(launcher, "workload-" + w + "." + incarnation, "transact", cluster.bootstrap(), TOPIC,
                Integer.toString(PARTITIONS), historyFiles().get(w).toString(), stopFile.toString(),
                Integer.toString(w * PRODUCERS_PER_WORKLOAD), Integer.toString(PRODUCERS_PER_WORKLOAD),
                Integer.toString(incarnation), Long.toString(FAULT_SECONDS + WAIT_SECONDS));
        if (w < workloads.size()) {
            workloads.set(w, process);
        } else {
            workloads.add(process);
        }
    }

    private Path read(List<String> launcher, String isolation) throws Exception {
        Path out = dir.resolve(isolation + ".txt");
        Process reader = java(launcher, isolation, "read", cluster.bootstrap(), TOPIC, Integer.toString(PARTITIONS),
                isolation, out.toString(), Long.toString(WAIT_SECONDS));
        readers.add(reader);
        boolean finished = reader.waitFor(WAIT_SECONDS + 30, TimeUnit.SECONDS);
        if (!finished || reader.exitValue() != 0) {
            Path kept = keepLogs(isolation);
            assertTrue(finished, isolation + " read did not finish; logs in " + kept);
            assertEquals(0, reader.exitValue(), isolation + " read failed (logs in " + kept + "):\n"
                    + Files.readString(dir.resolve(isolation + ".out"), StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * Copies the brokers' logs, the producers' histories and outputs out of the test's temporary directory (deleted
     * after the test) to {@code target/txn-checker-failures/<isolation>-<time>}, so that a failed run can be read.
     */
    private Path keepLogs(String isolation) throws IOException {
        Path kept = Path.of("target", "txn-checker-failures", isolation + "-" + System.currentTimeMillis())
                .toAbsolutePath();
        Files.createDirectories(kept);
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".log") || name.endsWith(".out") || name.endsWith(".txt")) {
                    Files.copy(file, kept.resolve(name));
                }
            }
        }
        return kept;
    }

    private Process java(List<String> launcher, String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), TransactionWorkload.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".out").toFile()).start();
    }
}
