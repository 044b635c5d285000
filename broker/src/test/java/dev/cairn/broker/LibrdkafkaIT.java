package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.ExternalTool.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka clients against Cairn: kcat (Debian's, librdkafka 2.0.2: Produce v7, Fetch v11, Metadata v4)
 * produces, consumes to the end (-C -e), lists metadata (-L) and shares partitions in a group (-G);
 * confluent-kafka for Python does a round trip.
 * In CI (CI=true) the tools must be there ({@code .ci/run} installs them); elsewhere a missing tool skips the
 * test with a visible reason.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LibrdkafkaIT {
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static Run run(String input, String... command) throws IOException, InterruptedException {
        return ExternalTool.run(dataDir, input, command);
    }

    private static void requireTool(String... probe) throws InterruptedException {
        ExternalTool.require(dataDir, probe);
    }

    @Test
    void kcatProducesConsumesAndListsMetadata() throws Exception {
        requireTool("kcat", "-V");
        String topic = "kcat-topic";
        String lines = IntStream.range(0, 5000).mapToObj(i -> "line-" + i).collect(Collectors.joining("\n")) + "\n";
        Run produce = run(lines, "kcat", "-b", broker.bootstrap(), "-t", topic, "-P", "-X", "acks=all");
        assertEquals(0, produce.exitCode(), produce.stderr());
        Run consume = run(null, "kcat", "-b", broker.bootstrap(), "-t", topic, "-C", "-e", "-q");
        assertEquals(0, consume.exitCode(), consume.stderr());
        List<String> consumed = new ArrayList<>(List.of(consume.stdout().split("\n")));
        assertEquals(5000, consumed.size(), "kcat consumed every line");
        assertEquals("line-0", consumed.get(0));
        assertEquals("line-4999", consumed.get(4999));
        Run metadata = run(null, "kcat", "-b", broker.bootstrap(), "-L");
        assertEquals(0, metadata.exitCode(), metadata.stderr());
        assertTrue(metadata.stdout().contains("topic \"" + topic + "\" with 1 partitions"), metadata.stdout());
        assertTrue(metadata.stdout().contains("leader 1, replicas: 1, isrs: 1"), metadata.stdout());
    }

    @Test
    void confluentKafkaForPythonRoundTrips() throws Exception {
        requireTool("python3", "-c", "import confluent_kafka");
        Path script = dataDir.resolve("confluent_round_trip.py");
        try (var in = LibrdkafkaIT.class.getResourceAsStream("/clients/confluent_round_trip.py")) {
            Files.copy(in, script);
        }
        Run run = run(null, "python3", script.toString(), broker.bootstrap(), "py-topic", "2000");
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("round trip ok: 2000 messages"), run.stdout());
    }

    /**
     * librdkafka produces with every codec (snappy as a raw block, without xerial framing, which Cairn refused
     * until issue 16) and reads each topic back.
     */
    @Test
    void kcatProducesAndConsumesWithEveryCodec() throws Exception {
        requireTool("kcat", "-V");
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            String topic = "kcat-codec-" + codec;
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < 2000; i++) {
                lines.append(codec).append("-line-").append(i).append('\n');
            }
            Run produce = run(lines.toString(), "kcat", "-b", broker.bootstrap(), "-t", topic, "-P", "-z", codec,
                    "-X", "acks=all");
            assertEquals(0, produce.exitCode(), codec + ": " + produce.stderr());
            Run consume = run(null, "kcat", "-b", broker.bootstrap(), "-t", topic, "-C", "-e", "-q");
            assertEquals(0, consume.exitCode(), codec + ": " + consume.stderr());
            List<String> consumed = consume.stdout().lines().toList();
            assertEquals(2000, consumed.size(), codec + ": every line came back");
            assertEquals(codec + "-line-1999", consumed.get(1999));
        }
    }

    /** confluent-kafka's AdminClient calls that Cairn serves, and a two-member group committing offsets. */
    @Test
    void confluentKafkaAdminCallsAndAGroupWork() throws Exception {
        requireTool("python3", "-c", "import confluent_kafka");
        Path script = dataDir.resolve("confluent_admin.py");
        try (var in = LibrdkafkaIT.class.getResourceAsStream("/clients/confluent_admin.py")) {
            Files.copy(in, script);
        }
        Run run = run(null, "python3", script.toString(), broker.bootstrap(), "py");
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stdout().contains("confluent-kafka admin ok"), run.stdout());
    }

    /**
     * Two {@code kcat -G} members (librdkafka's balanced consumer: JoinGroup v5, SyncGroup v3, Heartbeat v3) share
     * a four-partition topic two partitions each, and together consume every record.
     */
    @Test
    void twoKcatGroupMembersShareATopicsPartitions() throws Exception {
        requireTool("kcat", "-V");
        String topic = "kcat-group-topic";
        String group = "kcat-group";
        int records = 400;
        List<Process> members = new ArrayList<>();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(60, TimeUnit.SECONDS);
            String lines = IntStream.range(0, records).mapToObj(i -> "g-" + i).collect(Collectors.joining("\n"))
                    + "\n";
            Run produce = run(lines, "kcat", "-b", broker.bootstrap(), "-t", topic, "-P", "-X", "acks=all");
            assertEquals(0, produce.exitCode(), produce.stderr());
            List<Path> outputs = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                outputs.add(dataDir.resolve("kcat-group-" + i + ".out"));
                logs.add(dataDir.resolve("kcat-group-" + i + ".err"));
                members.add(new ProcessBuilder("kcat", "-b", broker.bootstrap(), "-G", group, "-u", "-f", "%s\n",
                        "-X", "auto.offset.reset=earliest", "-d", "protocol", topic)
                        .redirectOutput(outputs.get(i).toFile()).redirectError(logs.get(i).toFile()).start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ExternalTool.TIMEOUT_S);
            Set<String> consumed = new HashSet<>();
            ConsumerGroupDescription description = null;
            while (System.nanoTime() < deadline) {
                consumed.clear();
                for (Path output : outputs) {
                    consumed.addAll(Files.readAllLines(output));
                }
                description = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                        .get(group);
                if (consumed.size() == records && description.groupState() == GroupState.STABLE
                        && description.members().size() == 2) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
            assertEquals(records, consumed.size(), "the two members consumed every record between them");
            assertEquals(GroupState.STABLE, description.groupState(), description.toString());
            assertEquals("range", description.partitionAssignor());
            Set<Integer> owned = new HashSet<>();
            for (MemberDescription member : description.members()) {
                assertEquals(2, member.assignment().topicPartitions().size(), description.toString());
                member.assignment().topicPartitions().forEach(tp -> owned.add(tp.partition()));
            }
            assertEquals(Set.of(0, 1, 2, 3), owned);
            String log = Files.readString(logs.get(0));
            List<String> joinVersions = log.lines().filter(l -> l.contains("Sent JoinGroupRequest"))
                    .map(l -> l.replaceAll(".*Sent JoinGroupRequest \\((v[0-9]+).*", "$1")).distinct().toList();
            System.out.println("LibrdkafkaIT: kcat -G sent JoinGroup " + joinVersions);
            assertTrue(!joinVersions.isEmpty(), "kcat logged its JoinGroup requests");
        } finally {
            for (Process member : members) {
                // SIGTERM: kcat closes its consumer, which leaves the group.
                member.destroy();
                if (!member.waitFor(30, TimeUnit.SECONDS)) {
                    member.destroyForcibly();
                }
            }
        }
    }
}
