package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The cluster id every broker reports, agreed through the metadata group. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterIdentityTest {
    @TempDir
    Path dataDir;
    private final ScheduledExecutorService applier = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        applier.shutdownNow();
    }

    /**
     * A follower: the metadata leader answers OK once the proposal is committed, and this broker's image applies it
     * a moment later. Agreement waits for the local image (it failed at once with "no cluster id agreed").
     */
    private final class LaggingFollower implements MetadataService {
        private final ClusterMetadata core = new ClusterMetadata(change -> { });
        private final AtomicLong raftIndex = new AtomicLong();
        private final String alreadyAgreed;

        LaggingFollower(String alreadyAgreed) {
            this.alreadyAgreed = alreadyAgreed;
        }

        @Override
        public MetadataImage image() {
            return core.image();
        }

        @Override
        public CompletableFuture<MetadataResult> submit(MetadataCommand command) {
            if (alreadyAgreed != null) {
                core.apply(raftIndex.incrementAndGet(), new MetadataCommand.ProposeClusterId(alreadyAgreed));
            }
            applier.schedule(() -> core.apply(raftIndex.incrementAndGet(), command), 200, TimeUnit.MILLISECONDS);
            return CompletableFuture.completedFuture(MetadataResult.OK);
        }

        @Override
        public int controllerId() {
            return 2;
        }

        @Override
        public int localNodeId() {
            return 1;
        }
    }

    @Test
    void theFirstProposalIsAgreedOnceThisBrokerHasAppliedIt() throws Exception {
        String local = ClusterIdentity.local(dataDir);
        assertEquals(local, ClusterIdentity.local(dataDir), "kept in meta.properties");
        assertEquals(local, ClusterIdentity.agree(new LaggingFollower(null), dataDir, local, 10_000));
    }

    @Test
    void aBrokerWhoseDirectoryHeldAnotherIdAdoptsTheClustersAndStoresIt() throws Exception {
        String local = ClusterIdentity.local(dataDir);
        assertEquals("the-cluster", ClusterIdentity.agree(new LaggingFollower("the-cluster"), dataDir, local,
                10_000));
        assertEquals("the-cluster", ClusterIdentity.local(dataDir));
        assertEquals(true, Files.readString(dataDir.resolve(ClusterIdentity.FILE_NAME)).contains("the-cluster"));
    }
}
