package dev.cairn.broker.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A source connector for ConnectWorkerIT: emits the numbers {@code 0..records-1} as strings to {@code topic}, a few
 * per poll, and keeps its position as a Connect source offset, so a restarted worker resumes where the last
 * committed offset left it (Connect's at-least-once contract: records after that offset may come twice).
 */
public final class CountingSourceConnector extends SourceConnector {
    static final String TOPIC = "topic";
    static final String RECORDS = "records";
    private Map<String, String> config;

    @Override
    public void start(Map<String, String> props) {
        config = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CountingTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(config);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef()
                .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic to write to")
                .define(RECORDS, ConfigDef.Type.INT, ConfigDef.Importance.HIGH, "how many numbers to emit");
    }

    @Override
    public String version() {
        return "1";
    }

    /** The task: {@value #PER_POLL} numbers per poll, a short pause between polls, nothing once done. */
    public static final class CountingTask extends SourceTask {
        private static final int PER_POLL = 10;
        private static final long PAUSE_MS = 20;
        private static final Map<String, String> PARTITION = Map.of("source", "counter");
        private String topic;
        private int records;
        private long next;

        @Override
        public void start(Map<String, String> props) {
            topic = props.get(TOPIC);
            records = Integer.parseInt(props.get(RECORDS));
            Map<String, Object> offset = context.offsetStorageReader().offset(PARTITION);
            next = offset == null ? 0 : ((Number) offset.get("next")).longValue();
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            Thread.sleep(PAUSE_MS);
            List<SourceRecord> batch = new ArrayList<>();
            while (next < records && batch.size() < PER_POLL) {
                batch.add(new SourceRecord(PARTITION, Map.of("next", next + 1), topic, null, Schema.STRING_SCHEMA,
                        Long.toString(next), Schema.STRING_SCHEMA, Long.toString(next)));
                next++;
            }
            return batch.isEmpty() ? null : batch;
        }

        @Override
        public void stop() {
        }

        @Override
        public String version() {
            return "1";
        }
    }
}
