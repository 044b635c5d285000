package dev.cairn.raft.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The segment files of a {@link RaftWal}: {@code wal-<20-digit segment number>.log} in one directory. */
final class WalFiles {

    private WalFiles() {
    }

    static Path segmentPath(Path directory, long number) {
        return directory.resolve(String.format("wal-%020d.log", number));
    }

    /**
     * The numbers of the segments in {@code directory}, lowest first. Segments are deleted oldest first, so the
     * lowest-numbered one is where the log starts; a number missing between two that exist is a hole that no
     * deletion leaves, and this refuses it as it refuses a corrupt segment before the last.
     */
    static List<Long> segments(Path directory) throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(directory)) {
            files = listed.filter(f -> f.getFileName().toString().matches("wal-\\d{20}\\.log")).sorted().toList();
        }
        List<Long> numbers = new ArrayList<>();
        for (Path file : files) {
            long number = Long.parseLong(file.getFileName().toString().substring(4, 24));
            if (!numbers.isEmpty() && number != numbers.get(numbers.size() - 1) + 1) {
                throw new IOException("segment " + (numbers.get(numbers.size() - 1) + 1) + " is missing before "
                        + file + ": refusing to open a log with a hole");
            }
            numbers.add(number);
        }
        return numbers;
    }

    /** Makes the directory's entries (files created or deleted) durable. */
    static void forceDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
