package dev.cairn.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Appends result rows to a CSV file (writing the header once) and reads them back as name-to-value maps. */
final class CsvResults {
    /** A results file larger than this is refused rather than read into memory. */
    static final long FILE_BYTES_MAX = 64L * 1024 * 1024;

    private CsvResults() {
    }

    static void append(Path file, List<ResultRow> rows) throws IOException {
        StringBuilder text = new StringBuilder();
        if (!Files.exists(file) || Files.size(file) == 0) {
            text.append(ResultRow.HEADER).append('\n');
        }
        for (ResultRow row : rows) {
            text.append(row.toCsv()).append('\n');
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** The rows of a file this class wrote, each as column name to value, in file order. */
    static List<Map<String, String>> read(Path file) throws IOException {
        if (Files.size(file) > FILE_BYTES_MAX) {
            throw new IOException(file + " is larger than " + FILE_BYTES_MAX + " bytes");
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            return List.of();
        }
        String[] names = lines.get(0).split(",", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] values = lines.get(i).split(",", -1);
            if (values.length != names.length) {
                throw new IOException(file + " line " + (i + 1) + " has " + values.length + " columns, the header "
                        + names.length);
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < names.length; c++) {
                row.put(names[c], values[c]);
            }
            rows.add(row);
        }
        return rows;
    }
}
