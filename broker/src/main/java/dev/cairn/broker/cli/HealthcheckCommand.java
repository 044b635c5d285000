package dev.cairn.broker.cli;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.HostPort;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code healthcheck}: exit 0 when the broker answers ApiVersions without error and lists itself among the
 * cluster's brokers (it has registered through the metadata group), 1 otherwise. It reads the same
 * {@code --config}/{@code --set} as {@code start} to find the broker's listener, so a container health check
 * needs no other tool; a wildcard listener host is reached on 127.0.0.1.
 */
@Command(name = "healthcheck", description = "Exit 0 if the local broker serves and has joined its cluster, "
        + "1 if not.")
final class HealthcheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "The broker's properties file.")
    Path configFile;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override one key (repeatable).")
    List<String> overrides = List.of();

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "Longest wait to connect and for each response (default: ${DEFAULT-VALUE}).")
    int timeoutMs;

    @Override
    public Integer call() {
        // Docker reads 0 as healthy and 1 as unhealthy (2 is reserved), so every failure is 1.
        PrintWriter err = spec.commandLine().getErr();
        int exit = AdminCall.run(err, () -> {
            BrokerConfig config = BrokerConfig.fromMap(BrokerCommand.settings(configFile, overrides));
            HostPort listener = config.listener();
            String host = listener.host().equals("0.0.0.0") || listener.host().equals("::") ? "127.0.0.1"
                    : listener.host();
            try (AdminConnection connection = AdminConnection.open(host, listener.port(), timeoutMs)) {
                Struct versions = connection.send(ApiKey.API_VERSIONS, new Struct(ApiVersionsRequest.SCHEMA)
                        .set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, "cairn-healthcheck")
                        .set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION, "1"));
                ErrorCode error = ErrorCode.forCode(versions.get(ApiVersionsResponse.ERROR_CODE));
                if (error != ErrorCode.NONE) {
                    err.println("cairn: unhealthy: ApiVersions answered " + error);
                    return AdminOptions.EXIT_FAILED;
                }
                boolean registered = ClusterView.brokers(ClusterView.metadata(connection, List.of())).stream()
                        .anyMatch(b -> b.get(MetadataResponse.MetadataResponseBroker.NODE_ID) == config.nodeId());
                if (!registered) {
                    err.println("cairn: unhealthy: node " + config.nodeId() + " is not yet registered");
                    return AdminOptions.EXIT_FAILED;
                }
            }
            spec.commandLine().getOut().println("healthy");
            return AdminOptions.EXIT_OK;
        });
        return exit == AdminOptions.EXIT_OK ? AdminOptions.EXIT_OK : AdminOptions.EXIT_FAILED;
    }
}
