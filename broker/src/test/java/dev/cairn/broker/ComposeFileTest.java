package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docker compose -f docker/compose.yaml config} accepts the compose file and resolves three brokers with
 * the cluster settings. No Docker engine is needed for {@code config}, only the compose v2 CLI plugin; without
 * it the test is skipped and says why ({@code .ci/run} installs the plugin when it can).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ComposeFileTest {
    private static final long COMMAND_WAIT_SECONDS_MAX = 30;

    @TempDir
    Path dir;

    @Test
    void composeConfigAcceptsTheFile() throws Exception {
        List<String> compose = List.of("docker", "compose");
        Result version = run(List.of("docker", "compose", "version"));
        if (version.exit() != 0) {
            // The plugin binary also runs alone; Compose v1 (also called docker-compose) does not count.
            Result standalone = run(List.of("docker-compose", "version"));
            Assumptions.assumeTrue(standalone.exit() == 0 && standalone.output().contains("version v2"),
                    "skipped: neither `docker compose` nor a v2 `docker-compose` is installed here ("
                            + version.output().strip() + "); tools/install-compose-plugin.sh installs it");
            compose = List.of("docker-compose");
        }

        Path composeFile = Path.of("..", "docker", "compose.yaml").toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(compose);
        command.addAll(List.of("-f", composeFile.toString(), "config"));
        Result config = run(command);
        assertEquals(0, config.exit(), config.output());
        String resolved = config.output();
        for (int node = 1; node <= 3; node++) {
            assertTrue(resolved.contains("  broker-" + node + ":"), resolved);
            assertTrue(resolved.contains("CAIRN_NODE_ID: \"" + node + "\""), resolved);
            assertTrue(resolved.contains("CAIRN_ADVERTISED_LISTENERS: 127.0.0.1:" + node + "9092"), resolved);
            assertTrue(resolved.contains("published: \"" + node + "9092\""), resolved);
        }
        assertTrue(resolved.contains("CAIRN_RAFT_VOTERS: 1@broker-1:9093,2@broker-2:9093,3@broker-3:9093"), resolved);
        assertTrue(resolved.contains("CAIRN_DEFAULT_REPLICATION_FACTOR: \"3\""), resolved);
        assertTrue(resolved.contains("target: /var/lib/cairn"), resolved);
        assertTrue(resolved.contains("- /opt/cairn/entrypoint.sh\n        - healthcheck"), resolved);
    }

    /** Exit code and combined output of a short command; 127 when it cannot be started at all. */
    private record Result(int exit, String output) {
    }

    private Result run(List<String> command) throws IOException, InterruptedException {
        Path output = dir.resolve("output.txt");
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
        } catch (IOException notFound) {
            return new Result(127, notFound.getMessage());
        }
        if (!process.waitFor(COMMAND_WAIT_SECONDS_MAX, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + COMMAND_WAIT_SECONDS_MAX + " s");
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
