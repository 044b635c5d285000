package dev.cairn.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child process started from a command line (the broker jar, the container entrypoint script), its output in a
 * log file, waited on by what it logs; stopped with SIGTERM and only by its own handle.
 */
final class LoggedProcess implements AutoCloseable {
    /** How long a stopped process may take to exit after SIGTERM before it is killed. */
    static final long STOP_WAIT_MS_MAX = 30_000;
    private static final long POLL_MS = 100;

    private final Process process;
    private final Path logFile;

    private LoggedProcess(Process process, Path logFile) {
        this.process = process;
        this.logFile = logFile;
    }

    /** Starts {@code command} in {@code workDir} with {@code env} added to this JVM's environment. */
    static LoggedProcess start(List<String> command, Map<String, String> env, Path workDir, Path logFile)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(logFile.toFile()));
        builder.environment().putAll(env);
        return new LoggedProcess(builder.start(), logFile);
    }

    /** The path of the broker jar the package phase built ({@code broker/target/cairn-broker.jar}). */
    static Path brokerJar() {
        Path jar = Path.of("target", "cairn-broker.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing; integration tests run after `mvn package`");
        }
        return jar;
    }

    /** The java launcher of the JVM running the tests. */
    static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Waits until the log contains {@code text}; fails early if the process exits first. */
    void awaitLog(String text, long waitMsMax) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMsMax);
        while (System.nanoTime() < deadline) {
            if (log().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("process exited with " + process.exitValue() + " before logging '"
                        + text + "':\n" + log());
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        throw new IllegalStateException("no '" + text + "' within " + waitMsMax + " ms:\n" + log());
    }

    String log() throws IOException {
        return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to exit by itself; returns the exit code. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(STOP_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("process " + process.pid() + " did not exit within " + STOP_WAIT_MS_MAX
                    + " ms");
        }
        return process.exitValue();
    }

    /** Sends SIGTERM and waits for the exit; returns the exit code. */
    int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("process " + process.pid() + " ignored SIGTERM for " + STOP_WAIT_MS_MAX
                    + " ms and was killed");
        }
        return process.exitValue();
    }

    /** SIGTERM if still running, SIGKILL if that is ignored; an interrupt kills at once and is kept. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
