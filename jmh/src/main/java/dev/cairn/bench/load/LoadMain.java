package dev.cairn.bench.load;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The load tool: {@code run} drives producers and consumers against any Kafka-protocol broker through Cairn's own
 * client; {@code report} turns the CSV of many runs into a side-by-side table with ratios and an HTML page of
 * latency distributions.
 */
@Command(name = "cairn-load", mixinStandardHelpOptions = true, versionProvider = LoadMain.Version.class,
        subcommands = {RunCommand.class, ReportCommand.class},
        description = "Load generator and report tool for Kafka-protocol brokers.")
public final class LoadMain implements Runnable {

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the tool and returns its exit code (0 success, 1 failed run, 2 bad usage). */
    public static int execute(String... args) {
        return new CommandLine(new LoadMain()).execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** The version picocli prints for --version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"cairn-load 0.1"};
        }
    }
}
