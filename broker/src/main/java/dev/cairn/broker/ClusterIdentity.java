package dev.cairn.broker;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster id, one for the whole cluster as Kafka has it. Each data directory keeps an id in
 * {@code meta.properties} (made on first start); every broker proposes it through the metadata group, the first
 * proposal applied becomes the cluster's, and a broker whose directory held another adopts the cluster's and
 * rewrites its file. (Each directory used to keep its own, so the brokers of one cluster reported three ids.)
 */
final class ClusterIdentity {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterIdentity.class);
    static final String FILE_NAME = "meta.properties";
    private static final String KEY = "cluster.id";
    /** Pause between proposals while the metadata group elects a leader. */
    private static final long PROPOSE_RETRY_MS = 200;
    /** Pause between looks at the local image once the proposal is committed. */
    private static final long APPLY_POLL_MS = 10;

    private ClusterIdentity() {
    }

    /** The id this data directory holds, made and stored on first start. */
    static String local(Path dataDir) throws IOException {
        Properties properties = load(dataDir);
        String id = properties.getProperty(KEY);
        if (id != null) {
            return id;
        }
        UUID uuid = UUID.randomUUID();
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits());
        id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
        store(dataDir, properties, id);
        return id;
    }

    /**
     * Proposes {@code localId} until the metadata group holds a cluster id, within {@code waitMs}, and returns the
     * agreed one, stored in the data directory when it differs from what was there.
     */
    static String agree(MetadataService metadata, Path dataDir, String localId, long waitMs)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        MetadataResult last = null;
        boolean proposed = false;
        while (metadata.image().clusterId() == null && System.nanoTime() < deadline) {
            if (!proposed && metadata.controllerId() >= 0) {
                last = metadata.submit(new MetadataCommand.ProposeClusterId(localId)).join();
                proposed = last == MetadataResult.OK;
            }
            // Committed is not yet applied here: on a follower the image catches up a moment later.
            TimeUnit.MILLISECONDS.sleep(proposed ? APPLY_POLL_MS : PROPOSE_RETRY_MS);
        }
        String agreed = metadata.image().clusterId();
        if (agreed == null) {
            throw new IllegalStateException("no cluster id agreed within " + waitMs
                    + " ms (is a majority of raft.voters up?): " + last);
        }
        if (!agreed.equals(localId)) {
            LOG.warn("This data directory held cluster id {}, the cluster's is {}: adopting the cluster's", localId,
                    agreed);
            store(dataDir, load(dataDir), agreed);
        }
        return agreed;
    }

    private static Properties load(Path dataDir) throws IOException {
        Properties properties = new Properties();
        Path file = dataDir.resolve(FILE_NAME);
        if (Files.exists(file)) {
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
        }
        return properties;
    }

    private static void store(Path dataDir, Properties properties, String id) throws IOException {
        properties.setProperty(KEY, id);
        Path temporary = dataDir.resolve(FILE_NAME + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
            properties.store(writer, "Cairn broker identity");
        }
        Files.move(temporary, dataDir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }
}
