package dev.cairn.raft.runtime;

import dev.cairn.raft.storage.RaftWal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine's directory: a file that fixes its loop count at its first start ({@value #LOOPS_FILE}; a group's loop,
 * and so the log that holds it, follows from its id and that count), and one log directory per loop
 * ({@code loop-<i>}).
 */
final class EngineDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(EngineDirectory.class);
    /** The file in the engine's directory that fixes its loop count. */
    static final String LOOPS_FILE = "loops";

    private EngineDirectory() {
    }

    /**
     * Opens (or recovers) the loops' logs under {@code directory}: as many as it was first started with, which may
     * differ from {@code wantedLoops}. Closes what it opened if one fails.
     */
    static RaftWal.Opened[] open(Path directory, int wantedLoops) throws IOException {
        Files.createDirectories(directory);
        int loopCount = fixLoopCount(directory, wantedLoops);
        RaftWal.Opened[] opened = new RaftWal.Opened[loopCount];
        try {
            for (int i = 0; i < loopCount; i++) {
                opened[i] = RaftWal.open(directory.resolve("loop-" + i), RaftWal.SEGMENT_BYTES_DEFAULT);
            }
        } catch (IOException | RuntimeException e) {
            for (RaftWal.Opened open : opened) {
                if (open != null) {
                    open.wal().close();
                }
            }
            throw e;
        }
        return opened;
    }

    /** The loop count the directory was first started with, written there on its first start. */
    private static int fixLoopCount(Path directory, int wanted) throws IOException {
        Path file = directory.resolve(LOOPS_FILE);
        if (!Files.exists(file)) {
            Files.writeString(file, Integer.toString(wanted), StandardCharsets.US_ASCII);
            return wanted;
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        int fixed;
        try {
            fixed = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IOException(file + " holds '" + text + "', not a loop count", e);
        }
        if (fixed < 1 || fixed > EngineConfig.LOOPS_MAX) {
            throw new IOException(file + " holds " + fixed + ", outside [1, " + EngineConfig.LOOPS_MAX + "]");
        }
        if (fixed != wanted) {
            LOG.warn("{} was first started with {} Raft loops; keeping {} (asked for {})", directory, fixed, fixed,
                    wanted);
        }
        return fixed;
    }
}
