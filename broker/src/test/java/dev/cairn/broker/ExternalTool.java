package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs another client's command-line tool (kcat, python3 with confluent-kafka) for an IT, bounded in time, its
 * output kept in files under the test's directory. In CI (CI=true) a missing tool fails the test ({@code .ci/run}
 * installs them); elsewhere it skips with a visible reason.
 */
final class ExternalTool {
    static final long TIMEOUT_S = 90;

    /** What a run printed and how it ended. */
    record Run(int exitCode, String stdout, String stderr) {
    }

    private ExternalTool() {
    }

    static Run run(Path workDir, String input, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        if (input != null) {
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        }
        process.getOutputStream().close();
        if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within " + TIMEOUT_S + " s");
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    static void require(Path workDir, String... probe) throws InterruptedException {
        boolean present;
        try {
            present = run(workDir, null, probe).exitCode() == 0;
        } catch (IOException e) {
            present = false;
        }
        String what = String.join(" ", probe);
        if ("true".equals(System.getenv("CI"))) {
            assertTrue(present, what + " is required in CI (.ci/run installs it)");
        }
        Assumptions.assumeTrue(present, "skipped: " + what + " is not available on this machine");
    }
}
