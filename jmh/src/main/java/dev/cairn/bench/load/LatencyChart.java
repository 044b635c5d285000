package dev.cairn.bench.load;

import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A self-contained HTML page (inline SVG, no scripts, nothing fetched) that plots latency percentile
 * distributions: x is the percentile on a "nines" scale (50%, 90%, 99%, 99.9%, ...), y the latency in
 * milliseconds on a log scale, one line per series, with a table of the figures under it.
 */
final class LatencyChart {
    /** One line of the chart. */
    record Series(String name, Histogram latencyUs, String figures) {
    }

    /** One chart: a heading and its lines. */
    record Chart(String heading, List<Series> series) {
    }

    private static final int WIDTH = 900;
    private static final int HEIGHT = 480;
    private static final int LEFT = 70;
    private static final int RIGHT = 220;
    private static final int TOP = 30;
    private static final int BOTTOM = 50;
    /** The x axis ends at 99.999%. */
    private static final double NINES_MAX = 5;
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

    private LatencyChart() {
    }

    static String html(String title, List<Chart> charts) {
        StringBuilder page = new StringBuilder();
        page.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
                        + "td:first-child{text-align:left}</style></head><body>\n<h1>").append(escape(title))
                .append("</h1>\n");
        for (Chart chart : charts) {
            page.append("<h2>").append(escape(chart.heading())).append("</h2>\n").append(svg(chart.series()));
            page.append("<table><tr><th>series</th><th>figures</th></tr>\n");
            for (Series s : chart.series()) {
                page.append("<tr><td>").append(escape(s.name())).append("</td><td>").append(escape(s.figures()))
                        .append("</td></tr>\n");
            }
            page.append("</table>\n");
        }
        page.append("</body></html>\n");
        return page.toString();
    }

    private static String svg(List<Series> series) {
        double minMs = Double.MAX_VALUE;
        double maxMs = 0;
        for (Series s : series) {
            if (s.latencyUs().getTotalCount() > 0) {
                minMs = Math.min(minMs, Math.max(0.001, s.latencyUs().getMinValue() / 1000.0));
                maxMs = Math.max(maxMs, s.latencyUs().getMaxValue() / 1000.0);
            }
        }
        if (maxMs == 0) {
            minMs = 0.1;
            maxMs = 1;
        }
        double logMin = Math.floor(Math.log10(minMs));
        double logMax = Math.max(logMin + 1, Math.ceil(Math.log10(maxMs)));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-size=\"12\">\n", WIDTH, HEIGHT));
        axes(svg, logMin, logMax);
        for (int i = 0; i < series.size(); i++) {
            String color = COLORS[i % COLORS.length];
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color).append("\" points=\"");
            for (HistogramIterationValue v : series.get(i).latencyUs().percentiles(5)) {
                double fraction = v.getPercentileLevelIteratedTo() / 100.0;
                double nines = fraction >= 1 ? NINES_MAX : Math.min(NINES_MAX, -Math.log10(1 - fraction));
                double ms = Math.max(Math.pow(10, logMin), v.getValueIteratedTo() / 1000.0);
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(nines), y(Math.log10(ms), logMin, logMax)));
            }
            svg.append("\"/>\n");
            int legendY = TOP + 16 * i;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>\n", WIDTH - RIGHT + 15, legendY, color,
                    WIDTH - RIGHT + 32, legendY + 10, escape(series.get(i).name())));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void axes(StringBuilder svg, double logMin, double logMax) {
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#444\"/>\n", LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM));
        String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int n = 0; n <= NINES_MAX; n++) {
            double x = x(n);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, TOP, x, HEIGHT - BOTTOM,
                    x, HEIGHT - BOTTOM + 16, labels[n]));
        }
        for (double decade = logMin; decade <= logMax; decade++) {
            double y = y(decade, logMin, logMax);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s ms</text>\n", LEFT, y, WIDTH - RIGHT, y,
                    LEFT - 6, y + 4, trim(Math.pow(10, decade))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">percentile</text>\n",
                (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 12));
    }

    private static double x(double nines) {
        return LEFT + nines / NINES_MAX * (WIDTH - LEFT - RIGHT);
    }

    private static double y(double logMs, double logMin, double logMax) {
        return HEIGHT - BOTTOM - (logMs - logMin) / (logMax - logMin) * (HEIGHT - TOP - BOTTOM);
    }

    private static String trim(double value) {
        return value >= 1 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%s", value);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
