package dev.cairn.broker;

import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.RaftEngineKeys.Engine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Which Raft engine a data directory's partitions belong to, in the file {@code raft.engine}, written at first
 * start. A broker started later with the other {@code raft.engine} set explicitly is refused: the offsets store skips
 * commands whose Raft index it already applied, and the two engines number their entries independently, so switching
 * would silently drop offset commits (and the other engine would not find the partitions' Raft state). Without an
 * explicit setting a directory keeps the engine it records, so that one written by Ratis (the default before Cairn's
 * engine) keeps working after an upgrade. A directory from before this file existed, holding partitions, was
 * written by Ratis.
 */
final class RaftEngineMarker {
    static final String FILE_NAME = "raft.engine";
    /** The Ratis partition index: its presence without a marker means a directory written before the marker. */
    private static final String RATIS_INDEX = "partition-groups.properties";

    private RaftEngineMarker() {
    }

    /** Records {@code engine} on first start, or checks it against what the directory holds. */
    static void check(Path dataDir, Engine engine) throws IOException {
        check(dataDir, engine, true);
    }

    /**
     * The engine the broker runs on: {@code configured} on first start (recorded then), else the one the directory
     * records, which an {@code explicit} setting must match.
     */
    static Engine check(Path dataDir, Engine configured, boolean explicit) throws IOException {
        Engine engine = configured;
        Path file = dataDir.resolve(FILE_NAME);
        Engine recorded;
        if (Files.exists(file)) {
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            recorded = null;
            for (Engine each : Engine.values()) {
                if (each.configName().equals(text)) {
                    recorded = each;
                }
            }
            if (recorded == null) {
                throw new IOException(file + " holds '" + text + "', neither ratis nor cairn");
            }
        } else if (Files.exists(dataDir.resolve(RATIS_INDEX))) {
            recorded = Engine.RATIS;
        } else {
            recorded = engine;
        }
        if (!explicit) {
            engine = recorded;
        }
        if (recorded != engine) {
            throw new ConfigException("the data directory " + dataDir + " holds partitions of raft.engine="
                    + recorded.configName() + ", and this broker was started with raft.engine=" + engine.configName()
                    + "; an engine cannot be switched on existing data (start with an empty log.dirs, or keep "
                    + "raft.engine=" + recorded.configName() + ")");
        }
        if (!Files.exists(file)) {
            Files.createDirectories(dataDir);
            Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
            Files.writeString(tmp, engine.configName() + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return engine;
    }
}
