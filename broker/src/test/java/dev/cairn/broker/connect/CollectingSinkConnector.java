package dev.cairn.broker.connect;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** A sink connector for ConnectWorkerIT: counts how many times it received each record value (same JVM). */
public final class CollectingSinkConnector extends SinkConnector {
    /** Value to times received, over every task of every worker in this JVM. */
    public static final Map<String, Integer> RECEIVED = new ConcurrentHashMap<>();
    private Map<String, String> config;

    @Override
    public void start(Map<String, String> props) {
        config = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CollectingTask.class;
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
        return new ConfigDef();
    }

    @Override
    public String version() {
        return "1";
    }

    /** The task: records every value it is given. */
    public static final class CollectingTask extends SinkTask {
        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            for (SinkRecord record : records) {
                RECEIVED.merge(String.valueOf(record.value()), 1, Integer::sum);
            }
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
