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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka clients against Cairn: kcat (Debian's, librdkafka 2.0.2: Produce v7, Fetch v11, Metadata v4)
 * produces, consumes to the end (-C -e) and lists metadata (-L); confluent-kafka for Python does a round trip.
 * In CI (CI=true) the tools must be there ({@code .ci/run} installs them); elsewhere a missing tool skips the
 * test with a visible reason.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LibrdkafkaIT {
    private static final long TOOL_TIMEOUT_S = 90;
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run run(String input, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dataDir, "out", ".txt");
        Path err = Files.createTempFile(dataDir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        if (input != null) {
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        }
        process.getOutputStream().close();
        if (!process.waitFor(TOOL_TIMEOUT_S, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within " + TOOL_TIMEOUT_S + " s");
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void requireTool(String... probe) throws InterruptedException {
        boolean present;
        try {
            present = run(null, probe).exitCode == 0;
        } catch (IOException e) {
            present = false;
        }
        String what = String.join(" ", probe);
        if ("true".equals(System.getenv("CI"))) {
            assertTrue(present, what + " is required in CI (.ci/run installs it)");
        }
        Assumptions.assumeTrue(present, "skipped: " + what + " is not available on this machine");
    }

    @Test
    void kcatProducesConsumesAndListsMetadata() throws Exception {
        requireTool("kcat", "-V");
        String topic = "kcat-topic";
        String lines = IntStream.range(0, 5000).mapToObj(i -> "line-" + i).collect(Collectors.joining("\n")) + "\n";
        Run produce = run(lines, "kcat", "-b", broker.bootstrap(), "-t", topic, "-P", "-X", "acks=all");
        assertEquals(0, produce.exitCode(), produce.stderr());
        Run consume = run(null, "kcat", "-b", broker.bootstrap(), "-t", topic, "-C", "-e", "-q");
        assertEquals(0, consume.exitCode(), consume.stderr());
        List<String> consumed = new ArrayList<>(List.of(consume.stdout().split("\n")));
        assertEquals(5000, consumed.size(), "kcat consumed every line");
        assertEquals("line-0", consumed.get(0));
        assertEquals("line-4999", consumed.get(4999));
        Run metadata = run(null, "kcat", "-b", broker.bootstrap(), "-L");
        assertEquals(0, metadata.exitCode(), metadata.stderr());
        assertTrue(metadata.stdout().contains("topic \"" + topic + "\" with 1 partitions"), metadata.stdout());
        assertTrue(metadata.stdout().contains("leader 1, replicas: 1, isrs: 1"), metadata.stdout());
    }

    @Test
    void confluentKafkaForPythonRoundTrips() throws Exception {
        requireTool("python3", "-c", "import confluent_kafka");
        Path script = dataDir.resolve("confluent_round_trip.py");
        try (var in = LibrdkafkaIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
            Files.copy(in, script);
        }
        Run run = run(null, "python3", script.toString(), broker.bootstrap(), "py-topic", "2000");
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("round trip ok: 2000 messages"), run.stdout());
    }
}
