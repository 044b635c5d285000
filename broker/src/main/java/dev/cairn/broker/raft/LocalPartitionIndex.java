package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.TopicConfigsText;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Which partition each locally hosted Raft group is. Ratis recovers every group directory when the server
 * starts, before the metadata group has replayed, so the mapping from group id to topic-partition must be on
 * local disk. An entry is written (atomically: temporary file, fsync, rename) before its group is added.
 *
 * <p>File {@code partition-groups.properties}: {@code <groupId>=<topicId> <partition> <configs> <topic>}, where
 * configs are the topic's overrides as base64 of {@code name=value} lines ({@code -} when none): the log needs
 * them when Ratis recovers the group, before metadata has replayed.
 */
public final class LocalPartitionIndex {
    private static final String FILE_NAME = "partition-groups.properties";

    /** One hosted partition group. */
    public record Entry(UUID groupId, UUID topicId, int partition, String topic, Map<String, String> configs) {
        public Entry {
            configs = Map.copyOf(configs);
        }
    }

    private final Path file;
    private final Map<UUID, Entry> entries = new TreeMap<>();

    public LocalPartitionIndex(Path dataDir) throws IOException {
        this.file = dataDir.resolve(FILE_NAME);
        if (Files.exists(file)) {
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
            for (String key : properties.stringPropertyNames()) {
                String[] parts = properties.getProperty(key).split(" ", 4);
                if (parts.length != 4) {
                    throw new IOException(file + ": malformed entry " + key + "=" + properties.getProperty(key));
                }
                UUID groupId = UUID.fromString(key);
                entries.put(groupId, new Entry(groupId, UUID.fromString(parts[0]), Integer.parseInt(parts[1]),
                        parts[3], TopicConfigsText.decode(parts[2])));
            }
        }
    }

    public synchronized Optional<Entry> get(UUID groupId) {
        return Optional.ofNullable(entries.get(groupId));
    }

    public synchronized Map<UUID, Entry> entries() {
        return Map.copyOf(entries);
    }

    public synchronized void put(Entry entry) throws IOException {
        if (entry.equals(entries.get(entry.groupId()))) {
            return;
        }
        entries.put(entry.groupId(), entry);
        save();
    }

    /** Adds or replaces many entries with one write of the file (a 1,000-partition topic used to cost 1,000). */
    public synchronized void putAll(java.util.Collection<Entry> added) throws IOException {
        boolean changed = false;
        for (Entry entry : added) {
            changed |= !entry.equals(entries.put(entry.groupId(), entry));
        }
        if (changed) {
            save();
        }
    }

    /** Removes many entries with one write of the file. */
    public synchronized void removeAll(java.util.Collection<UUID> groupIds) throws IOException {
        boolean changed = false;
        for (UUID groupId : groupIds) {
            changed |= entries.remove(groupId) != null;
        }
        if (changed) {
            save();
        }
    }

    public synchronized void remove(UUID groupId) throws IOException {
        if (entries.remove(groupId) != null) {
            save();
        }
    }

    private void save() throws IOException {
        Properties properties = new Properties();
        for (Entry e : entries.values()) {
            properties.setProperty(e.groupId().toString(), e.topicId() + " " + e.partition() + " "
                    + TopicConfigsText.encode(e.configs()) + " " + e.topic());
        }
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            properties.store(writer, "Raft groups hosted by this broker");
        }
        try (var channel = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
