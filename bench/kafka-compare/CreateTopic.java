import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates a topic with Kafka's own Admin client and waits until every partition has a leader; prints the seconds
 * both took. Used by bench/partition-scale.sh against Cairn and Kafka alike. More than 1,000 partitions (Cairn's
 * per-topic limit) become topics TOPIC-0, TOPIC-1, ... of at most 1,000 each, created by one CreateTopics request.
 *
 *   java -cp "bench-work/kafka-libs/*" bench/kafka-compare/CreateTopic.java BOOTSTRAP TOPIC PARTITIONS RF
 */
public final class CreateTopic {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        short replicationFactor = Short.parseShort(args[3]);
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("default.api.timeout.ms", "600000");
        props.put("request.timeout.ms", "300000");
        long start = System.nanoTime();
        int perTopicMax = 1000;
        java.util.Map<String, Integer> topics = new java.util.LinkedHashMap<>();
        if (partitions <= perTopicMax) {
            topics.put(topic, partitions);
        } else {
            for (int i = 0, left = partitions; left > 0; i++, left -= perTopicMax) {
                topics.put(topic + "-" + i, Math.min(perTopicMax, left));
            }
        }
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(topics.entrySet().stream().map(t -> new NewTopic(t.getKey(), t.getValue(),
                    replicationFactor)).toList()).all().get(10, TimeUnit.MINUTES);
            long created = System.nanoTime();
            long deadline = created + TimeUnit.MINUTES.toNanos(10);
            while (true) {
                Map<String, TopicDescription> described;
                try {
                    described = admin.describeTopics(topics.keySet()).allTopicNames().get(1, TimeUnit.MINUTES);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(200);   // on several brokers, the one asked may not have the new topic yet
                    continue;
                }
                long led = described.values().stream().flatMap(d -> d.partitions().stream())
                        .filter(p -> p.leader() != null && p.leader().id() >= 0).count();
                if (led == partitions) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(led + " of " + partitions + " partitions have a leader");
                }
                Thread.sleep(200);
            }
            long ready = System.nanoTime();
            System.out.printf("created_s=%.1f leaders_s=%.1f%n", (created - start) / 1e9, (ready - start) / 1e9);
        }
    }
}
