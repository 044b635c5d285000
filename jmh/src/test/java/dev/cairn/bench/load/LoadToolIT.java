package dev.cairn.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI's smoke run of the load tool, as a user runs it (the picocli entry point), against an in-process single-node
 * broker on loopback: a short produce-then-consume run and a short e2e run, then the report over both CSVs. It
 * checks that records flowed and that the CSV and HTML outputs were written, never how fast anything was.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadToolIT {
    @TempDir
    static Path dir;
    private static BrokerFixture broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = BrokerFixture.start(dir.resolve("broker"), Map.of());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    @Test
    void produceConsumeAndEndToEndRunsWriteCsvHtmlAndAReport() throws Exception {
        Path csv = dir.resolve("results.csv");
        Path html = dir.resolve("run.html");
        assertEquals(0, LoadMain.execute("run", "--bootstrap", broker.bootstrap(), "--topic", "smoke-pc",
                "--record-bytes", "512", "--partitions", "2", "--producers", "2", "--consumers", "2", "--sync",
                "--duration", "4", "--warmup", "1", "--consume-timeout", "30", "--target", "cairn", "--cell", "pc",
                "--csv", csv.toString(), "--html", html.toString()));
        assertEquals(0, LoadMain.execute("run", "--bootstrap", broker.bootstrap(), "--topic", "smoke-e2e",
                "--workload", "e2e", "--record-bytes", "256", "--rate", "200", "--duration", "4", "--warmup", "1",
                "--consume-timeout", "30", "--target", "cairn", "--cell", "e2e", "--csv", csv.toString()));

        List<Map<String, String>> rows = CsvResults.read(csv);
        assertEquals(List.of("produce", "consume", "produce", "e2e"), rows.stream().map(r -> r.get("role")).toList());
        for (Map<String, String> row : rows) {
            assertTrue(Long.parseLong(row.get("records")) > 0, "no records flowed: " + row);
            assertEquals("0", row.get("errors"), "errors in " + row);
            assertTrue(ResultRow.decode(row.get("histogram")).getTotalCount() > 0, "empty histogram: " + row);
        }
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.contains("<svg") && page.contains("<polyline"), "no latency plot in " + html);

        Path report = dir.resolve("report.html");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, LoadMain.execute("report", "--csv", csv.toString(), "--subject", "cairn", "--baseline",
                    "kafka", "--html", report.toString()));
        } finally {
            System.setOut(stdout);
        }
        String table = captured.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("| e2e | e2e |"), table);
        assertTrue(Files.readString(report, StandardCharsets.UTF_8).contains("<polyline"), "no plot in the report");
    }

    @Test
    void badArgumentsAreRefusedWithAMessageAndExitCodeTwo() {
        assertEquals(2, LoadMain.execute("run", "--bootstrap", broker.bootstrap(), "--record-bytes", "4"));
        assertEquals(2, LoadMain.execute("run", "--bootstrap", broker.bootstrap(), "--workload", "sideways"));
    }
}
