package dev.cairn.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A broker in its own JVM, started from the test class path with the real CLI, so a test can kill it with
 * SIGKILL ({@link #kill()}) and start it again on the same data directory. Output goes to a log file.
 */
final class BrokerProcess implements AutoCloseable {
    private static final long START_WAIT_MS_MAX = 90_000;

    private final List<String> command;
    private final Path logFile;
    private Process process;
    /** Where this run's output starts in the log file. */
    private long logStart;

    BrokerProcess(Map<String, String> settings, Path logFile) {
        this(List.of(), settings, logFile);
    }

    /** @param launcher words run before java, e.g. {@code ip netns exec NAME} to start it in a namespace */
    BrokerProcess(List<String> launcher, Map<String, String> settings, Path logFile) {
        this.logFile = logFile;
        this.command = new ArrayList<>(launcher);
        this.command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), "dev.cairn.broker.cli.BrokerCommand",
                "start"));
        ItRaftEngine.withEngine(settings).forEach((key, value) -> {
            command.add("--set");
            command.add(key + "=" + value);
        });
    }

    /** Starts the broker and waits until it logs that it serves. */
    void start() throws IOException, InterruptedException {
        launch();
        awaitStarted();
    }

    /**
     * Starts the process without waiting (brokers of a cluster must start together to form a majority). A restart
     * appends to the log file, so what the broker printed before a kill is kept.
     */
    void launch() throws IOException {
        logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
    }

    /** Waits until the launched broker logs that it serves. */
    void awaitStarted() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_WAIT_MS_MAX);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited with " + process.exitValue() + ":\n" + log());
            }
            if (Files.exists(logFile) && log().indexOf(" started: node.id=", (int) logStart) >= 0) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("broker did not start within " + START_WAIT_MS_MAX + " ms:\n" + log());
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    String log() throws IOException {
        return Files.readString(logFile, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
