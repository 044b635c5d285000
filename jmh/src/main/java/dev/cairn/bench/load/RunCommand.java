package dev.cairn.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code cairn-load run}: one load run; prints a table, and optionally appends CSV rows and writes an HTML plot. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Create a topic, load it, print throughput and latency; exit 1 if a role moved no records.")
final class RunCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "host:port[,host:port...] of the brokers")
    String bootstrap;
    @Option(names = "--topic", description = "topic to create and load (default: cairn-load-<epoch ms>)")
    String topic;
    @Option(names = "--workload", defaultValue = "produce-consume",
            description = "produce-consume (produce for the duration, then read it all back) or e2e")
    String workload;
    @Option(names = "--record-bytes", defaultValue = "1024", description = "value size of each record")
    int recordBytes;
    @Option(names = "--partitions", defaultValue = "1")
    int partitions;
    @Option(names = "--replication-factor", defaultValue = "1")
    int replicationFactor;
    @Option(names = "--producers", defaultValue = "1", description = "concurrent producers (each owns a partition "
            + "when there are several)")
    int producers;
    @Option(names = "--consumers", defaultValue = "1", description = "concurrent consumers; 0 skips consuming")
    int consumers;
    @Option(names = "--acks", defaultValue = "all", description = "all, 1 or 0")
    String acks;
    @Option(names = "--sync", description = "send one record at a time and wait for its acknowledgement")
    boolean sync;
    @Option(names = "--batch-bytes", defaultValue = "16384", description = "producer batch.size")
    int batchBytes;
    @Option(names = "--linger-ms", defaultValue = "5", description = "producer linger.ms")
    int lingerMs;
    @Option(names = "--rate", defaultValue = "0", description = "target records/s over all producers; 0 = max")
    int rate;
    @Option(names = "--duration", defaultValue = "10", description = "seconds of producing")
    int durationSec;
    @Option(names = "--warmup", defaultValue = "0", description = "first seconds of producing not counted")
    int warmupSec;
    @Option(names = "--consume-timeout", defaultValue = "60",
            description = "longest the consume phase, or the e2e drain, may take (s)")
    int consumeTimeoutSec;
    @Option(names = "--target", defaultValue = "broker", description = "label of the system measured (CSV)")
    String target;
    @Option(names = "--cell", defaultValue = "run", description = "label of this run (CSV)")
    String cell;
    @Option(names = "--csv", description = "append result rows to this CSV file")
    Path csv;
    @Option(names = "--html", description = "write a latency percentile plot of this run to this HTML file")
    Path html;
    @Spec
    CommandSpec commandSpec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        LoadSpec spec;
        try {
            spec = spec();
        } catch (IllegalArgumentException invalid) {
            // Bad usage: picocli prints the message and the usage, and the exit code is 2.
            throw new ParameterException(commandSpec.commandLine(), invalid.getMessage(), invalid);
        }
        List<RoleResult> results = new LoadRun(spec).run();
        List<ResultRow> rows = new ArrayList<>();
        results.forEach(result -> rows.add(new ResultRow(target, cell, spec, result)));
        System.out.print(ResultTable.format(rows));
        if (csv != null) {
            CsvResults.append(csv, rows);
        }
        if (html != null) {
            List<LatencyChart.Series> series = new ArrayList<>();
            rows.forEach(row -> series.add(new LatencyChart.Series(row.result().role(), row.result().latencyUs(),
                    ResultTable.figures(row.result()))));
            String title = target + " " + cell + ": " + spec.recordBytes() + " B, " + spec.sendMode() + ", "
                    + spec.producers() + "P/" + spec.consumers() + "C on " + spec.partitions() + " partitions";
            Files.writeString(html, LatencyChart.html(title, List.of(new LatencyChart.Chart(title, series))),
                    StandardCharsets.UTF_8);
        }
        boolean flowed = results.stream().allMatch(result -> result.records() > 0);
        return flowed ? 0 : 1;
    }

    private LoadSpec spec() {
        for (String label : List.of(target, cell)) {
            if (!label.matches("[A-Za-z0-9._:/=+-]{1,100}")) {
                throw new IllegalArgumentException("label '" + label + "' may hold only letters, digits and ._:/=+-");
            }
        }
        return new LoadSpec(bootstrap, topic != null ? topic : "cairn-load-" + System.currentTimeMillis(),
                parseWorkload(workload), recordBytes, partitions, replicationFactor, producers, consumers, acks, sync,
                batchBytes, lingerMs, rate, durationSec, warmupSec, consumeTimeoutSec);
    }

    private static LoadSpec.Workload parseWorkload(String text) {
        switch (text.toLowerCase(Locale.ROOT)) {
            case "produce-consume":
                return LoadSpec.Workload.PRODUCE_CONSUME;
            case "e2e":
                return LoadSpec.Workload.E2E;
            default:
                throw new IllegalArgumentException("--workload must be produce-consume or e2e, not '" + text + "'");
        }
    }
}
