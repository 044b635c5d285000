package dev.cairn.bench.load;

import java.util.List;
import java.util.Locale;

/** The plain-text table the run command prints: one line per role. */
final class ResultTable {
    private static final String LINE = "%-10s %-14s %-8s %10s %12s %9s %9s %9s %9s %9s %9s %7s%n";

    private ResultTable() {
    }

    static String format(List<ResultRow> rows) {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, LINE, "target", "cell", "role", "records", "records/s", "MB/s",
                "mean ms", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "errors"));
        for (ResultRow row : rows) {
            RoleResult r = row.result();
            table.append(String.format(Locale.ROOT, LINE, row.target(), row.cell(), r.role(), r.records(),
                    ResultRow.fixed(r.recordsPerSec(), 1), ResultRow.fixed(r.megabytesPerSec(), 2),
                    ResultRow.fixed(r.meanMs(), 3), ResultRow.fixed(r.percentileMs(50), 3),
                    ResultRow.fixed(r.percentileMs(99), 3), ResultRow.fixed(r.percentileMs(99.9), 3),
                    ResultRow.fixed(r.maxMs(), 3), r.errors()));
        }
        return table.toString();
    }

    /** One role's figures on one line, for the HTML page. */
    static String figures(RoleResult r) {
        return String.format(Locale.ROOT, "%d records, %.1f records/s, %.2f MB/s; mean %.3f, p50 %.3f, p99 %.3f, "
                + "p99.9 %.3f, max %.3f ms; %d errors", r.records(), r.recordsPerSec(), r.megabytesPerSec(),
                r.meanMs(), r.percentileMs(50), r.percentileMs(99), r.percentileMs(99.9), r.maxMs(), r.errors());
    }
}
