package dev.cairn.broker.cli;

import dev.cairn.broker.config.HostPort;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options every admin command shares: which broker to ask and how long to wait for it. */
final class AdminOptions {
    /** Exit codes of the admin commands (picocli uses 2 for a usage error). */
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_UNREACHABLE = 3;

    /** The command this mixin is part of: its writers are where output goes (tests capture them). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9092",
            description = "A broker's Kafka listener (default: ${DEFAULT-VALUE}).")
    String bootstrapServer;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Longest wait to connect and for each response (default: ${DEFAULT-VALUE}).")
    int timeoutMs;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    AdminConnection connect() throws IOException {
        HostPort address = HostPort.parse(bootstrapServer);
        return AdminConnection.open(address.host(), address.port(), timeoutMs);
    }

    AdminConnection connect(String host, int port) throws IOException {
        return AdminConnection.open(host, port, timeoutMs);
    }
}
