package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transaction checker finds each anomaly it claims to look for, and none in a clean history. */
class TransactionHistoryTest {
    @TempDir
    Path dir;

    private TransactionHistory history() throws Exception {
        Path file = dir.resolve("history.txt");
        Files.write(file, List.of(
                "begin 0.0.0 2", "end 0.0.0 committed",
                "begin 0.0.1 2", "end 0.0.1 aborted",
                "begin 0.0.2 3",                       // unknown: the producer was killed
                "begin 0.0.3 2", "end 0.0.3 committed",
                "begin 0.1.0 2", "end 0.1.0 comm"));   // a line cut short by a kill: the outcome stays unknown
        return TransactionHistory.read(List.of(file, dir.resolve("missing.txt")));
    }

    private Map<String, Integer> check(String... lines) throws Exception {
        Path read = dir.resolve("read.txt");
        Files.write(read, List.of(lines));
        return history().check(read);
    }

    private static Map<String, Integer> anomalies(int aborted, int torn, int lost, int duplicate, int order) {
        return Map.of("aborted read", aborted, "torn transaction", torn, "lost write", lost, "duplicate", duplicate,
                "offset order", order);
    }

    @Test
    void outcomesAreReadAndCutLinesSkipped() throws Exception {
        TransactionHistory history = history();
        assertEquals(5, history.transactions());
        assertEquals(2, history.count(TransactionHistory.COMMITTED));
        assertEquals(1, history.count(TransactionHistory.ABORTED));
        assertEquals(2, history.count(TransactionHistory.UNKNOWN));
    }

    @Test
    void aCleanReadHasNoAnomaliesAndUnknownOutcomesMayBeSeenWholeOrNotAtAll() throws Exception {
        assertEquals(anomalies(0, 0, 0, 0, 0), check("0 0 0.0.0:0/2", "1 0 0.0.0:1/2", "0 1 0.0.2:0/3",
                "0 2 0.0.2:1/3", "1 1 0.0.2:2/3", "1 2 0.0.3:0/2", "1 3 0.0.3:1/2"));
    }

    @Test
    void eachAnomalyIsCounted() throws Exception {
        assertEquals(anomalies(1, 0, 0, 0, 0), check("0 0 0.0.0:0/2", "0 1 0.0.0:1/2", "0 2 0.0.1:0/2",
                "0 3 0.0.1:1/2", "0 4 0.0.3:0/2", "0 5 0.0.3:1/2"));
        assertEquals(anomalies(0, 1, 0, 0, 0), check("0 0 0.0.0:0/2", "0 1 0.0.0:1/2", "0 2 0.0.2:0/3",
                "0 4 0.0.3:0/2", "0 5 0.0.3:1/2"));
        assertEquals(anomalies(0, 0, 1, 0, 0), check("0 0 0.0.0:0/2", "0 1 0.0.0:1/2"));
        assertEquals(anomalies(0, 1, 0, 1, 0), check("0 0 0.0.0:0/2", "0 1 0.0.0:1/2", "0 2 0.0.0:1/2",
                "0 4 0.0.3:0/2", "0 5 0.0.3:1/2"));
        assertEquals(anomalies(0, 0, 0, 0, 1), check("0 1 0.0.0:0/2", "0 0 0.0.0:1/2", "1 4 0.0.3:0/2",
                "1 5 0.0.3:1/2"));
    }
}
