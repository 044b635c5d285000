package dev.cairn.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cairn-load report}: reads the CSV rows of many runs and prints, per cell and role, the subject beside the
 * baseline with their ratios (a Markdown table): throughput averaged over the rounds of each target, latency
 * percentiles from the rounds' histograms merged. Optionally writes one HTML page with a latency plot per row.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Side-by-side table (Markdown) of two targets from run CSVs, with subject/baseline ratios.")
final class ReportCommand implements Callable<Integer> {
    @Option(names = "--csv", required = true, description = "result CSV files written by run --csv")
    List<Path> csvFiles;
    @Option(names = "--subject", defaultValue = "cairn", description = "target in the numerator of the ratios")
    String subject;
    @Option(names = "--baseline", defaultValue = "kafka", description = "target in the denominator")
    String baseline;
    @Option(names = "--html", description = "write latency plots of every row to this HTML file")
    Path html;
    @Option(names = "--title", defaultValue = "Cairn load report", description = "title of the HTML page")
    String title;

    /** The rounds of one target in one (cell, role). */
    private static final class Rounds {
        int count;
        double recordsPerSec;
        double mbPerSec;
        long errors;
        final Histogram latencyUs = new Histogram(LatencyRecorder.LATENCY_US_MAX, 3);

        void add(Map<String, String> row) {
            count++;
            recordsPerSec += Double.parseDouble(row.get("recordsPerSec"));
            mbPerSec += Double.parseDouble(row.get("mbPerSec"));
            errors += Long.parseLong(row.get("errors"));
            latencyUs.add(ResultRow.decode(row.get("histogram")));
        }

        RoleResult average(String role) {
            // Re-expressed as a RoleResult over one second so the shared formatting applies.
            return new RoleResult(role, Math.round(recordsPerSec / count),
                    Math.round(mbPerSec / count * 1024 * 1024), 1_000_000_000L, errors, latencyUs);
        }
    }

    @Override
    public Integer call() throws IOException {
        Map<String, Map<String, Rounds>> groups = new LinkedHashMap<>();
        for (Path file : csvFiles) {
            for (Map<String, String> row : CsvResults.read(file)) {
                String key = row.get("cell") + " " + row.get("role");
                groups.computeIfAbsent(key, unused -> new LinkedHashMap<>())
                        .computeIfAbsent(row.get("target"), unused -> new Rounds()).add(row);
            }
        }
        System.out.print(table(groups));
        if (html != null) {
            Files.writeString(html, LatencyChart.html(title, charts(groups)), StandardCharsets.UTF_8);
        }
        return 0;
    }

    private String table(Map<String, Map<String, Rounds>> groups) {
        StringBuilder out = new StringBuilder();
        String s = subject;
        String b = baseline;
        out.append(String.format(Locale.ROOT, "| cell | role | %s rec/s | %s rec/s | rec/s ratio | %s MB/s | %s MB/s "
                + "| %s p50 ms | %s p50 ms | %s p99 ms | %s p99 ms | p99 ratio | %s p99.9 ms | %s p99.9 ms |%n",
                s, b, s, b, s, b, s, b, s, b));
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Map<String, Rounds>> group : groups.entrySet()) {
            String[] cellRole = group.getKey().split(" ", 2);
            RoleResult sr = average(group.getValue().get(s), cellRole[1]);
            RoleResult br = average(group.getValue().get(b), cellRole[1]);
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                    + "| %s |%n", cellRole[0], cellRole[1],
                    num(sr, r -> r.recordsPerSec(), 0), num(br, r -> r.recordsPerSec(), 0),
                    ratio(sr, br, r -> r.recordsPerSec()),
                    num(sr, r -> r.megabytesPerSec(), 2), num(br, r -> r.megabytesPerSec(), 2),
                    num(sr, r -> r.percentileMs(50), 2), num(br, r -> r.percentileMs(50), 2),
                    num(sr, r -> r.percentileMs(99), 2), num(br, r -> r.percentileMs(99), 2),
                    ratio(sr, br, r -> r.percentileMs(99)),
                    num(sr, r -> r.percentileMs(99.9), 2), num(br, r -> r.percentileMs(99.9), 2)));
        }
        return out.toString();
    }

    private static RoleResult average(Rounds rounds, String role) {
        return rounds == null ? null : rounds.average(role);
    }

    private static String num(RoleResult r, java.util.function.ToDoubleFunction<RoleResult> f, int decimals) {
        return r == null ? "-" : ResultRow.fixed(f.applyAsDouble(r), decimals);
    }

    private static String ratio(RoleResult top, RoleResult bottom, java.util.function.ToDoubleFunction<RoleResult> f) {
        if (top == null || bottom == null || f.applyAsDouble(bottom) == 0) {
            return "-";
        }
        return ResultRow.fixed(f.applyAsDouble(top) / f.applyAsDouble(bottom), 2);
    }

    private static List<LatencyChart.Chart> charts(Map<String, Map<String, Rounds>> groups) {
        List<LatencyChart.Chart> charts = new ArrayList<>();
        for (Map.Entry<String, Map<String, Rounds>> group : groups.entrySet()) {
            String role = group.getKey().split(" ", 2)[1];
            List<LatencyChart.Series> series = new ArrayList<>();
            group.getValue().forEach((target, rounds) -> {
                RoleResult r = rounds.average(role);
                series.add(new LatencyChart.Series(target + " (" + rounds.count + " rounds)", rounds.latencyUs,
                        ResultTable.figures(r)));
            });
            charts.add(new LatencyChart.Chart(group.getKey(), series));
        }
        return charts;
    }
}
