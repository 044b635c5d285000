package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Result;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that used up its retries is closed by Ratis for good; LeaderClients must build a fresh one for the next
 * request. The one it kept answered every later commit and offset read with AlreadyClosedException, and a
 * consumer group whose partition leader's broker had stopped never read its committed offsets again.
 */
class LeaderClientsTest {
    @Test
    void theCausesThatMeanAClientIsClosedForGood() {
        assertTrue(LeaderClients.closedForGood(new CompletionException(new RaftRetryFailureException(null, 20,
                null, null))));
        assertTrue(LeaderClients.closedForGood(new CompletionException(new AlreadyClosedException("closed"))));
        assertFalse(LeaderClients.closedForGood(new java.util.concurrent.TimeoutException()));
        assertFalse(LeaderClients.closedForGood(null));
    }

    @Test
    @Timeout(60)
    void aClientThatGaveUpIsReplacedForTheNextRequest() throws Exception {
        // A bound, unconnected socket holds a port nobody listens on: every connection to it is refused.
        try (Socket reserved = new Socket()) {
            reserved.bind(new InetSocketAddress("127.0.0.1", 0));
            String deadLeader = "127.0.0.1:" + reserved.getLocalPort();
            ClusterMetadata metadata = singlePartitionTopic();
            RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
            try (LeaderClients clients = new LeaderClients(metadata::image,
                    ids -> List.of(RaftHost.peer("7", deadLeader)), settings.toProperties(),
                    settings.toParameters())) {
                TopicPartition tp = new TopicPartition("orders", 0);
                String first = clientIdOf(clients.query(tp, ByteBuffer.wrap(new byte[] {1}), 30_000)
                        .get(40, TimeUnit.SECONDS));
                String second = clientIdOf(clients.query(tp, ByteBuffer.wrap(new byte[] {1}), 30_000)
                        .get(40, TimeUnit.SECONDS));
                assertNotEquals(first, second, "the second request went through a new client");
            }
        }
    }

    /** A client knows only the peers it was built with: one is rebuilt when the replicas move, dropped on deletion. */
    @Test
    @Timeout(60)
    void aClientIsRebuiltWhenItsReplicasMoveAndDroppedWithItsTopic() throws Exception {
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        UUID topicId = UUID.randomUUID();
        metadata.apply(1, new MetadataCommand.RegisterBroker(new dev.cairn.broker.cluster.BrokerInfo(7, "h7", 9092,
                "127.0.0.1:1")));
        metadata.apply(2, new MetadataCommand.RegisterBroker(new dev.cairn.broker.cluster.BrokerInfo(8, "h8", 9092,
                "127.0.0.1:2")));
        metadata.apply(3, new MetadataCommand.CreateTopic(new TopicInfo("orders", topicId, List.of(List.of(7)),
                Map.of())));
        RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
        try (LeaderClients clients = new LeaderClients(metadata::image,
                ids -> ids.stream().map(id -> RaftHost.peer(Integer.toString(id), "127.0.0.1:1")).toList(),
                settings.toProperties(), settings.toParameters())) {
            TopicPartition tp = new TopicPartition("orders", 0);
            UUID gid = dev.cairn.broker.cluster.PartitionGroups.groupId(topicId, 0);
            clients.query(tp, ByteBuffer.wrap(new byte[] {1}), 50).get(40, TimeUnit.SECONDS);
            assertEquals(Map.of(gid, List.of(7)), clients.clientReplicas());
            metadata.apply(4, new MetadataCommand.ReassignPartition("orders", topicId, 0, List.of(8)));
            clients.query(tp, ByteBuffer.wrap(new byte[] {1}), 50).get(40, TimeUnit.SECONDS);
            assertEquals(Map.of(gid, List.of(8, 7)), clients.clientReplicas());
            metadata.apply(5, new MetadataCommand.DeleteTopic("orders"));
            clients.retainGroupsOf(metadata.image());
            assertEquals(Map.of(), clients.clientReplicas());
        }
    }

    /** Past the idle limit, the least recently used idle clients are closed: reading every partition keeps few. */
    @Test
    @Timeout(60)
    void idleClientsBeyondTheLimitAreClosed() throws Exception {
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        for (int t = 0; t < 5; t++) {
            metadata.apply(t + 1, new MetadataCommand.CreateTopic(new TopicInfo("t" + t, UUID.randomUUID(),
                    List.of(List.of(7)), Map.of())));
        }
        RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
        try (LeaderClients clients = new LeaderClients(metadata::image,
                ids -> List.of(RaftHost.peer("7", "127.0.0.1:1")), settings.toProperties(), settings.toParameters(),
                new LeaderClients.Bounds(2, LeaderClients.OUTSTANDING_REQUESTS_MAX, LeaderClients.STALLED_AFTER_MS))) {
            List<java.util.concurrent.CompletableFuture<Result>> reads = new java.util.ArrayList<>();
            for (int t = 0; t < 5; t++) {
                reads.add(clients.query(new TopicPartition("t" + t, 0), ByteBuffer.wrap(new byte[] {1}), 50));
            }
            for (var read : reads) {
                read.get(40, TimeUnit.SECONDS);
            }
            assertEquals(2, clients.clientReplicas().size(), "only the idle limit's worth of clients is kept");
        }
    }

    /**
     * Ratis's ordered client blocks the sending thread while its outstanding requests are at its bound; the senders
     * are Netty event loops, so past the bound a request is refused at once instead. Here the leader's port refuses
     * connections, so the first two requests stay outstanding through Ratis's retries.
     */
    @Test
    @Timeout(60)
    void pastTheOutstandingBoundARequestIsRefusedAtOnce() throws Exception {
        try (Socket reserved = new Socket()) {
            reserved.bind(new InetSocketAddress("127.0.0.1", 0));
            String deadLeader = "127.0.0.1:" + reserved.getLocalPort();
            ClusterMetadata metadata = singlePartitionTopic();
            RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
            try (LeaderClients clients = new LeaderClients(metadata::image,
                    ids -> List.of(RaftHost.peer("7", deadLeader)), settings.toProperties(),
                    settings.toParameters(), new LeaderClients.Bounds(LeaderClients.IDLE_CLIENTS_MAX, 2,
                    LeaderClients.STALLED_AFTER_MS))) {
                TopicPartition tp = new TopicPartition("orders", 0);
                var first = clients.send(tp, ByteBuffer.wrap(new byte[] {1}), 30_000);
                var second = clients.send(tp, ByteBuffer.wrap(new byte[] {1}), 30_000);
                long startNanos = System.nanoTime();
                var third = clients.send(tp, ByteBuffer.wrap(new byte[] {1}), 30_000);
                assertTrue(third.isDone(), "refused without waiting");
                assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) < 1_000);
                Result.Rejected refused = assertInstanceOf(Result.Rejected.class, third.join());
                assertEquals(dev.cairn.protocol.ErrorCode.REQUEST_TIMED_OUT, refused.error());
                assertTrue(refused.message().contains("outstanding"), refused.message());
                assertFalse(first.isDone() && second.isDone(), "the first two were still outstanding");
                first.get(40, TimeUnit.SECONDS);
                second.get(40, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A leader that takes the connection and never answers: Ratis would keep the requests for its whole retry budget
     * (about a minute), and its ordered window answers nothing meanwhile. A call whose wait runs out after the client
     * has ended nothing for the stall bound (lowered here to 200 ms) drops that client, so the next call starts afresh;
     * a call whose wait runs out sooner does not.
     */
    @Test
    @Timeout(60)
    void aClientThatAnswersNothingForAWholeCallIsReplaced() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            String silentLeader = "127.0.0.1:" + silent.getLocalPort();
            ClusterMetadata metadata = singlePartitionTopic();
            RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
            try (LeaderClients clients = new LeaderClients(metadata::image,
                    ids -> List.of(RaftHost.peer("7", silentLeader)), settings.toProperties(),
                    settings.toParameters(), new LeaderClients.Bounds(LeaderClients.IDLE_CLIENTS_MAX,
                    LeaderClients.OUTSTANDING_REQUESTS_MAX, 200))) {
                TopicPartition tp = new TopicPartition("orders", 0);
                assertInstanceOf(Result.Rejected.class, clients.send(tp, ByteBuffer.wrap(new byte[] {1}), 50)
                        .get(40, TimeUnit.SECONDS));
                assertEquals(1, clients.clientReplicas().size(), "a wait shorter than the stall bound keeps it");
                assertInstanceOf(Result.Rejected.class, clients.send(tp, ByteBuffer.wrap(new byte[] {1}), 400)
                        .get(40, TimeUnit.SECONDS));
                assertEquals(Map.of(), clients.clientReplicas(), "the stalled client is no longer kept");
            }
        }
    }

    /**
     * Issue 16 item 10: closing a broker closes every kept client, and a client with requests outstanding at a leader
     * that answers nothing takes gRPC's graceful channel close (3 s) and then its forced close (2 s). One after the
     * other, a broker with many such clients took minutes to close while its Raft server, still open, kept holding
     * elections with the other closing brokers. They are closed together, and close returns within
     * {@link LeaderClients#CLOSE_WAIT_MS} whatever they do.
     */
    @Test
    @Timeout(60)
    void closingManyClientsWhoseLeaderAnswersNothingIsBounded() throws Exception {
        int topics = 8;
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            String silentLeader = "127.0.0.1:" + silent.getLocalPort();
            ClusterMetadata metadata = new ClusterMetadata(change -> { });
            for (int t = 0; t < topics; t++) {
                metadata.apply(t + 1, new MetadataCommand.CreateTopic(new TopicInfo("t" + t, UUID.randomUUID(),
                        List.of(List.of(7)), Map.of())));
            }
            RatisSettings settings = RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
            LeaderClients clients = new LeaderClients(metadata::image,
                    ids -> List.of(RaftHost.peer("7", silentLeader)), settings.toProperties(),
                    settings.toParameters());
            List<java.util.concurrent.CompletableFuture<Result>> sends = new java.util.ArrayList<>();
            for (int t = 0; t < topics; t++) {
                sends.add(clients.send(new TopicPartition("t" + t, 0), ByteBuffer.wrap(new byte[] {1}), 30_000));
            }
            assertEquals(topics, clients.clientReplicas().size());
            long startNanos = System.nanoTime();
            clients.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            System.out.println("closing " + topics + " clients took " + closeMs + " ms");
            assertTrue(closeMs < LeaderClients.CLOSE_WAIT_MS + 1_000, "close took " + closeMs + " ms");
            for (var send : sends) {
                assertInstanceOf(Result.Rejected.class, send.get(40, TimeUnit.SECONDS));
            }
        }
    }

    private static ClusterMetadata singlePartitionTopic() {
        ClusterMetadata metadata = new ClusterMetadata(change -> { });
        metadata.apply(1, new MetadataCommand.CreateTopic(new TopicInfo("orders", UUID.randomUUID(),
                List.of(List.of(7)), Map.of())));
        return metadata;
    }

    /** The Ratis client named in a failure's message ("client-" and hex digits). */
    private static String clientIdOf(Result result) {
        Result.Rejected rejected = assertInstanceOf(Result.Rejected.class, result);
        Matcher client = Pattern.compile("client-[0-9A-F]+").matcher(rejected.message());
        assertTrue(client.find(), rejected.message());
        return client.group();
    }
}
