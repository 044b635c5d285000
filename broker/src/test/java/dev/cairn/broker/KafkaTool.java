package dev.cairn.broker;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one of Apache Kafka's command-line tools in this JVM, as a user runs its script: its main class with the
 * script's arguments, stdout and stderr captured. The tools end with {@code Exit.exit(code)}; between {@link #install}
 * and {@link #uninstall} that throws instead of ending the JVM, and a tool that returns without calling it exited 0.
 */
final class KafkaTool {
    private KafkaTool() {
    }

    /** A tool's {@code public static void main(String[])}. */
    interface ToolMain {
        void main(String[] args) throws Exception;
    }

    /** How a tool ended and what it printed (stderr also holds in-process brokers' log lines of that time). */
    record ToolRun(List<String> args, int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "kafka tool " + String.join(" ", args) + "\nexit code " + exitCode + "\n--- stdout ---\n" + out
                    + "--- stderr ---\n" + err;
        }
    }

    /** What {@code Exit.exit} throws while installed. */
    private static final class ToolExited extends RuntimeException {
        private final int code;

        ToolExited(int code) {
            super("Exit.exit(" + code + ")", null, false, false);
            this.code = code;
        }
    }

    /** Routes the tools' exit and halt to an exception (call before each test). */
    static void install() {
        Exit.setExitProcedure((code, message) -> {
            throw new ToolExited(code);
        });
        Exit.setHaltProcedure((code, message) -> {
            throw new ToolExited(code);
        });
    }

    /** Gives exit and halt back to the JVM (call after each test). */
    static void uninstall() {
        Exit.resetExitProcedure();
        Exit.resetHaltProcedure();
    }

    /** Runs the tool's main with System.out and System.err captured; a main that returns exited 0. */
    static ToolRun run(ToolMain tool, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        int exitCode = 0;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            tool.main(args);
        } catch (ToolExited exited) {
            exitCode = exited.code;
        } finally {
            System.out.flush();
            System.err.flush();
            System.setOut(realOut);
            System.setErr(realErr);
        }
        ToolRun run = new ToolRun(List.of(args), exitCode, out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8));
        realOut.println(run);
        return run;
    }
}
