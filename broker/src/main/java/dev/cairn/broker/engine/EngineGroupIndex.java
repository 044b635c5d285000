package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.TopicConfigsText;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Which partition each engine group hosted here is, with the voters it was created with. The engine keeps neither
 * (its log holds Raft state only), and every hosted group must be created again at start before metadata replays,
 * so this lives on local disk. An entry is written (temporary file, fsync, rename) before its group is created, and
 * removed after the group's removal is in the engine's log.
 *
 * <p>File {@code engine-groups.properties}: {@code <group>=<topicId> <partition> <configs> <voters> <topic>},
 * configs as {@link TopicConfigsText}, voters as comma-separated replica ids.
 */
final class EngineGroupIndex {
    static final String FILE_NAME = "engine-groups.properties";

    /** One hosted group. {@code voters}: replica ids (node id + 1). */
    record Entry(int group, UUID topicId, int partition, String topic, Map<String, String> configs,
            List<Integer> voters) {
        Entry {
            configs = Map.copyOf(configs);
            voters = List.copyOf(voters);
        }
    }

    private final Path file;
    private final Map<Integer, Entry> entries = new TreeMap<>();

    EngineGroupIndex(Path dataDir) throws IOException {
        this.file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        for (String key : properties.stringPropertyNames()) {
            String line = properties.getProperty(key);
            String[] parts = line.split(" ", 5);
            try {
                if (parts.length != 5) {
                    throw new IllegalArgumentException("5 fields expected");
                }
                List<Integer> voters = new ArrayList<>();
                for (String voter : parts[3].split(",")) {
                    voters.add(Integer.parseInt(voter));
                }
                int group = Integer.parseInt(key);
                entries.put(group, new Entry(group, UUID.fromString(parts[0]), Integer.parseInt(parts[1]), parts[4],
                        TopicConfigsText.decode(parts[2]), voters));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": malformed entry " + key + "=" + line + " (" + e.getMessage() + ")");
            }
        }
    }

    synchronized Map<Integer, Entry> entries() {
        return Map.copyOf(entries);
    }

    /** Adds or replaces entries with one write of the file. */
    synchronized void putAll(Collection<Entry> added) throws IOException {
        boolean changed = false;
        for (Entry entry : added) {
            changed |= !entry.equals(entries.put(entry.group(), entry));
        }
        if (changed) {
            save();
        }
    }

    /** Removes entries with one write of the file. */
    synchronized void removeAll(Collection<Integer> groups) throws IOException {
        boolean changed = false;
        for (int group : groups) {
            changed |= entries.remove(group) != null;
        }
        if (changed) {
            save();
        }
    }

    private void save() throws IOException {
        Properties properties = new Properties();
        for (Entry e : entries.values()) {
            StringBuilder voters = new StringBuilder();
            for (int voter : e.voters()) {
                voters.append(voters.length() == 0 ? "" : ",").append(voter);
            }
            properties.setProperty(Integer.toString(e.group()), e.topicId() + " " + e.partition() + " "
                    + TopicConfigsText.encode(e.configs()) + " " + voters + " " + e.topic());
        }
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            properties.store(writer, "Raft engine groups hosted by this broker");
        }
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
