package dev.cairn.broker.cli;

import dev.cairn.broker.Broker;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar cairn-broker.jar start [--config FILE] [--set key=value]...}, the admin commands
 * ({@code topics}, {@code groups}), {@code healthcheck} and {@code version}.
 */
@Command(name = "cairn-broker", mixinStandardHelpOptions = true, versionProvider = BrokerCommand.Version.class,
        description = "Cairn: a Raft-replicated broker that speaks the Kafka protocol.",
        subcommands = {BrokerCommand.Start.class, TopicsCommand.class, GroupsCommand.class, HealthcheckCommand.class,
                BrokerCommand.PrintVersion.class})
public final class BrokerCommand implements Callable<Integer> {

    public static void main(String[] args) {
        System.exit(new CommandLine(new BrokerCommand()).execute(args));
    }

    @Override
    public Integer call() {
        CommandLine.usage(this, System.err);
        return 2;
    }

    /** Starts a broker and runs until SIGTERM or SIGINT. */
    @Command(name = "start", description = "Start a broker (with no options: a single-node cluster on "
            + "127.0.0.1:9092, data in ./cairn-data).")
    static final class Start implements Callable<Integer> {
        @Option(names = "--config", paramLabel = "FILE", description = "A broker properties file.")
        Path configFile;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override one key (repeatable).")
        List<String> overrides = List.of();

        @Override
        public Integer call() throws Exception {
            BrokerConfig config;
            try {
                config = BrokerConfig.fromMap(settings(configFile, overrides));
            } catch (ConfigException e) {
                System.err.println("cairn: " + e.getMessage());
                return 2;
            }
            Broker broker;
            try {
                broker = Broker.start(config);
            } catch (ConfigException e) {
                System.err.println("cairn: " + e.getMessage());
                return 2;
            }
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    broker.close();
                } catch (IOException e) {
                    System.err.println("cairn: error while shutting down: " + e);
                } finally {
                    stopped.countDown();
                }
            }, "cairn-shutdown"));
            stopped.await();
            return 0;
        }
    }

    /** Merges the properties file (if any) and the {@code --set} overrides, later ones winning. */
    static Map<String, String> settings(Path configFile, List<String> overrides) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        if (configFile != null) {
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(configFile, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
            for (String key : properties.stringPropertyNames()) {
                settings.put(key, properties.getProperty(key).trim());
            }
        }
        for (String override : overrides) {
            int eq = override.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("--set " + override + " is not key=value");
            }
            settings.put(override.substring(0, eq).trim(), override.substring(eq + 1).trim());
        }
        return settings;
    }

    @Command(name = "version", description = "Print the version.")
    static final class PrintVersion implements Callable<Integer> {
        @Override
        public Integer call() {
            System.out.println("cairn " + Broker.version());
            return 0;
        }
    }

    /** Supplies --version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"cairn " + Broker.version()};
        }
    }
}
