package dev.cairn.broker.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.InProcessCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.util.FutureCallback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, acceptance 2: an unmodified Kafka Connect 4.4 distributed worker runs on three Cairn brokers with its
 * three compacted internal topics at RF=3. A source connector writes numbered records into a topic and a sink
 * connector reads them back; the worker is stopped and a new one started midway, and the sink ends with every
 * number, none lost; duplicates are counted and allowed (Connect's at-least-once contract).
 */
@Timeout(value = 360, unit = TimeUnit.SECONDS)
class ConnectWorkerIT {
    private static final String DATA_TOPIC = "connect-data";
    private static final int RECORDS = 2_000;
    private static final long WAIT_SECONDS = 150;

    @TempDir
    Path dir;
    private InProcessCluster cluster;
    private Connect<DistributedHerder> worker;

    @AfterEach
    void stop() throws IOException {
        if (worker != null) {
            worker.stop();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void sourceAndSinkSurviveAWorkerRestartWithoutLosingRecords() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("default.replication.factor", "3",
                "group.initial.rebalance.delay.ms", "0"));
        CollectingSinkConnector.RECEIVED.clear();
        worker = startWorker();
        create("counting-source", Map.of("connector.class", CountingSourceConnector.class.getName(),
                "tasks.max", "1", CountingSourceConnector.TOPIC, DATA_TOPIC,
                CountingSourceConnector.RECORDS, Integer.toString(RECORDS)));
        create("collecting-sink", Map.of("connector.class", CollectingSinkConnector.class.getName(),
                "tasks.max", "1", "topics", DATA_TOPIC));
        awaitTrue(() -> CollectingSinkConnector.RECEIVED.size() >= RECORDS / 4, "a quarter through the sink");

        worker.stop();
        worker = startWorker();
        awaitTrue(() -> CollectingSinkConnector.RECEIVED.size() == RECORDS, "every record through the sink");
        int duplicates = 0;
        for (int i = 0; i < RECORDS; i++) {
            Integer times = CollectingSinkConnector.RECEIVED.get(Integer.toString(i));
            assertTrue(times != null && times >= 1, "record " + i + " reached the sink");
            duplicates += times - 1;
        }
        System.out.println("ConnectWorkerIT: " + RECORDS + " records, " + duplicates + " received twice or more");

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            for (String topic : List.of("connect-configs", "connect-offsets", "connect-status")) {
                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                assertEquals("compact", admin.describeConfigs(List.of(resource)).all()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS).get(resource).get("cleanup.policy").value(), topic);
                assertEquals(3, admin.describeTopics(List.of(topic)).allTopicNames().get(WAIT_SECONDS,
                        TimeUnit.SECONDS).get(topic).partitions().get(0).replicas().size(), topic);
            }
        }
    }

    private Connect<DistributedHerder> startWorker() {
        Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrap());
        props.put("group.id", "cairn-connect");
        props.put("config.storage.topic", "connect-configs");
        props.put("offset.storage.topic", "connect-offsets");
        props.put("status.storage.topic", "connect-status");
        props.put("config.storage.replication.factor", "3");
        props.put("offset.storage.replication.factor", "3");
        props.put("status.storage.replication.factor", "3");
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("offset.flush.interval.ms", "500");
        props.put("listeners", "http://127.0.0.1:0");
        props.put("plugin.discovery", "only_scan");
        return new ConnectDistributed().startConnect(props);
    }

    private void create(String name, Map<String, String> config) throws Exception {
        FutureCallback<org.apache.kafka.connect.runtime.Herder.Created<ConnectorInfo>> created = new FutureCallback<>();
        Map<String, String> named = new HashMap<>(config);
        named.put("name", name);
        worker.herder().putConnectorConfig(name, named, false, created);
        created.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what + " (sink has "
                    + CollectingSinkConnector.RECEIVED.size() + ")");
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
