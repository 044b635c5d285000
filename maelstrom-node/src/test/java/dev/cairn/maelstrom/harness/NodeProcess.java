package dev.cairn.maelstrom.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node under test: a child process started with {@link ProcessBuilder}, stdin and stdout as pipes carrying
 * one JSON message per line, stderr copied to {@code <logDir>/<node>.log} (Maelstrom's {@code node-logs/}) and,
 * with {@code logStderr}, also to the harness's stderr with a {@code [nX]} prefix.
 */
final class NodeProcess implements NodeSink {

    private static final Logger LOG = LoggerFactory.getLogger(NodeProcess.class);

    /** Bound on one stdout line; a longer line is a node bug (Maelstrom messages are small). */
    static final int LINE_CHARS_MAX = 16 * 1024 * 1024;
    /** How long teardown waits for a killed node to be reaped. */
    static final long EXIT_WAIT_MS_MAX = 5_000;

    private final String nodeId;
    private final Process process;
    private final Writer stdin;
    private final Thread stdoutThread;
    private final Thread stderrThread;
    private volatile boolean stopping;
    private boolean writeFailureLogged;

    private NodeProcess(String nodeId, Process process, Thread stdoutThread, Thread stderrThread) {
        this.nodeId = nodeId;
        this.process = process;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.stdoutThread = stdoutThread;
        this.stderrThread = stderrThread;
    }

    /**
     * Starts the node and its two reader threads. {@code onLine} receives each stdout line on the node's own
     * reader thread.
     */
    static NodeProcess start(String nodeId, List<String> command, Path logDir, boolean logStderr,
                             BiConsumer<String, String> onLine) throws IOException {
        Files.createDirectories(logDir);
        ProcessBuilder builder = new ProcessBuilder(command)
            .directory(Path.of(System.getProperty("java.io.tmpdir")).toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .redirectError(ProcessBuilder.Redirect.PIPE);
        Process process = builder.start();
        Path logFile = logDir.resolve(nodeId + ".log");
        Thread stdout = new Thread(() -> readStdout(nodeId, process, onLine), "harness-" + nodeId + "-stdout");
        Thread stderr = new Thread(() -> copyStderr(nodeId, process, logFile, logStderr ? System.err : null),
            "harness-" + nodeId + "-stderr");
        stdout.setDaemon(true);
        stderr.setDaemon(true);
        NodeProcess node = new NodeProcess(nodeId, process, stdout, stderr);
        stdout.start();
        stderr.start();
        return node;
    }

    private static void readStdout(String nodeId, Process process, BiConsumer<String, String> onLine) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.length() > LINE_CHARS_MAX) {
                    LOG.warn("{} printed a {}-char line (LINE_CHARS_MAX={}); dropped", nodeId, line.length(),
                        LINE_CHARS_MAX);
                    continue;
                }
                onLine.accept(nodeId, line);
            }
        } catch (IOException e) {
            LOG.debug("{} stdout closed: {}", nodeId, e.toString());
        }
    }

    private static void copyStderr(String nodeId, Process process, Path logFile, PrintStream echo) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
             Writer log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                log.write(line);
                log.write('\n');
                log.flush();
                if (echo != null) {
                    echo.println("[" + nodeId + "] " + line);
                }
            }
        } catch (IOException e) {
            LOG.debug("{} stderr closed: {}", nodeId, e.toString());
        }
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    /** Writes one line to the node's stdin and flushes; a dead node's pipe error is logged, not thrown. */
    @Override
    public void send(String line) {
        synchronized (stdin) {
            try {
                stdin.write(line);
                stdin.write('\n');
                stdin.flush();
            } catch (IOException e) {
                if (!stopping && !writeFailureLogged) {
                    writeFailureLogged = true;
                    LOG.warn("cannot write to {} (further failures not logged): {}", nodeId, e.toString());
                }
            }
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit status, or null while the process runs. */
    Integer exitStatus() {
        return process.isAlive() ? null : process.exitValue();
    }

    /** Kills the process by its own handle (SIGKILL, like Maelstrom's teardown) and waits for the readers. */
    void destroy() throws InterruptedException {
        stopping = true;
        process.destroyForcibly();
        if (!process.waitFor(EXIT_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
            LOG.warn("{} not reaped within EXIT_WAIT_MS_MAX={}", nodeId, EXIT_WAIT_MS_MAX);
        }
        stdoutThread.join(EXIT_WAIT_MS_MAX);
        stderrThread.join(EXIT_WAIT_MS_MAX);
    }
}
