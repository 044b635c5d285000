package dev.cairn.broker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The client side of {@link TransactionCheckerIT}, run as its own JVM: inside the test's network namespace when the
 * network is cut, and so that the test can kill producers with SIGKILL. Every outcome goes to files the test reads
 * ({@link TransactionHistory}).
 *
 * <pre>
 * transact BOOTSTRAP TOPIC PARTITIONS HISTORY_FILE STOP_FILE FIRST_PRODUCER PRODUCERS INCARNATION MAX_SECONDS
 *     creates the topic (RF 3) unless it exists, then runs PRODUCERS transactional producers (ids checker-N from
 *     FIRST_PRODUCER) until STOP_FILE exists: transactions of 2-5 records over random partitions, about one in four
 *     aborted. HISTORY_FILE gets "begin NAME SIZE" before a transaction's first send and "end NAME committed" or
 *     "end NAME aborted" once its producer learnt the outcome; a transaction without an end has an unknown outcome.
 *     A record's value is "NAME:K/SIZE"; NAME is "N.INCARNATION.T", unique across restarts of a producer.
 * read BOOTSTRAP TOPIC PARTITIONS ISOLATION OUT_FILE MAX_SECONDS
 *     waits until no transaction is open (the last stable offsets equal the log end offsets), then reads every
 *     partition from its start to that end with ISOLATION (read_committed or read_uncommitted); OUT_FILE gets
 *     "PARTITION OFFSET VALUE" per record in the order read.
 * </pre>
 */
public final class TransactionWorkload {
    private static final int TOPIC_CREATE_SECONDS = 120;
    private static final int TRANSACTION_TIMEOUT_MS = 10_000;
    private static final int MAX_BLOCK_MS = 30_000;

    private TransactionWorkload() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[1];
        String topic = args[2];
        int partitions = Integer.parseInt(args[3]);
        if (args[0].equals("transact")) {
            Path history = Path.of(args[4]);
            Path stopFile = Path.of(args[5]);
            int first = Integer.parseInt(args[6]);
            int producers = Integer.parseInt(args[7]);
            int incarnation = Integer.parseInt(args[8]);
            long deadline = deadline(args[9]);
            createTopic(bootstrap, topic, partitions);
            try (BufferedWriter out = Files.newBufferedWriter(history, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                List<Thread> threads = new ArrayList<>();
                for (int p = first; p < first + producers; p++) {
                    int id = p;
                    Thread thread = new Thread(() -> transact(bootstrap, topic, partitions, id, incarnation, out,
                            () -> !Files.exists(stopFile) && System.nanoTime() < deadline), "producer-" + p);
                    thread.start();
                    threads.add(thread);
                }
                for (Thread thread : threads) {
                    thread.join();
                }
            }
        } else {
            read(bootstrap, topic, partitions, args[4], Path.of(args[5]), deadline(args[6]));
        }
    }

    private static long deadline(String seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(seconds));
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 3))).all()
                    .get(TOPIC_CREATE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** One producer's loop; a producer that fails fatally (fenced, a failed abort) is replaced by a new session. */
    private static void transact(String bootstrap, String topic, int partitions, int id, int incarnation,
            BufferedWriter history, java.util.function.BooleanSupplier running) {
        SplittableRandom random = new SplittableRandom(id * 1_000L + incarnation);
        int txn = 0;
        while (running.getAsBoolean()) {
            try (KafkaProducer<String, String> producer = producer(bootstrap, "checker-" + id)) {
                producer.initTransactions();
                while (running.getAsBoolean()) {
                    String name = id + "." + incarnation + "." + (txn++);
                    int size = 2 + random.nextInt(4);
                    boolean commit = random.nextInt(4) != 0;
                    write(history, "begin " + name + " " + size);
                    try {
                        producer.beginTransaction();
                        for (int k = 0; k < size; k++) {
                            producer.send(new ProducerRecord<>(topic, random.nextInt(partitions), null,
                                    name + ":" + k + "/" + size));
                        }
                        // Sent before it ends, so an abort has records in the log to hide (abortTransaction drops
                        // what is still buffered, which would leave read_committed nothing to prove).
                        producer.flush();
                        if (commit) {
                            producer.commitTransaction();
                        } else {
                            producer.abortTransaction();
                        }
                        write(history, "end " + name + (commit ? " committed" : " aborted"));
                    } catch (KafkaException e) {
                        // Abortable: the abort is the outcome. Fatal (fenced, a timed-out commit): the abort throws,
                        // the outcome stays unknown and a new session takes over.
                        producer.abortTransaction();
                        write(history, "end " + name + " aborted");
                    }
                }
            } catch (KafkaException e) {
                System.err.println("producer checker-" + id + " starts a new session after: " + e);
            }
        }
    }

    private static void write(BufferedWriter history, String line) {
        synchronized (history) {
            try {
                history.write(line);
                history.newLine();
                history.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        return new KafkaProducer<>(props);
    }

    private static Properties consumerProps(String bootstrap, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        return props;
    }

    private static void read(String bootstrap, String topic, int partitions, String isolation, Path out,
            long deadline) throws Exception {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(bootstrap, isolation));
             BufferedWriter writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            Map<TopicPartition, Long> ends = awaitStableEnds(bootstrap, tps, deadline);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the read did not reach the end offsets " + ends + " in time");
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    writer.write(record.partition() + " " + record.offset() + " " + record.value());
                    writer.newLine();
                }
            }
        }
    }

    /** What the coordinators and the partitions' leaders say of open transactions, for a failed read's message. */
    private static String openTransactions(String bootstrap, List<TopicPartition> tps) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        StringBuilder out = new StringBuilder();
        try (Admin admin = Admin.create(props)) {
            var listings = admin.listTransactions().all().get(30, TimeUnit.SECONDS);
            out.append("transactions: ").append(listings).append('\n');
            List<String> ids = listings.stream().map(listing -> listing.transactionalId()).toList();
            if (!ids.isEmpty()) {
                out.append("described: ").append(admin.describeTransactions(ids).all().get(30, TimeUnit.SECONDS))
                        .append('\n');
            }
            out.append("producers: ").append(admin.describeProducers(tps).all().get(30, TimeUnit.SECONDS));
        } catch (Exception failed) {
            out.append("(could not describe the transactions: ").append(failed).append(')');
        }
        return out.toString();
    }

    /** The end offsets once read_committed and read_uncommitted agree on them: no transaction is open. */
    private static Map<TopicPartition, Long> awaitStableEnds(String bootstrap, List<TopicPartition> tps,
            long deadline) throws InterruptedException {
        try (KafkaConsumer<String, String> committed = new KafkaConsumer<>(consumerProps(bootstrap,
                "read_committed"));
             KafkaConsumer<String, String> uncommitted = new KafkaConsumer<>(consumerProps(bootstrap,
                     "read_uncommitted"))) {
            Map<TopicPartition, Long> stable = Map.of();
            Map<TopicPartition, Long> ends = Map.of();
            while (System.nanoTime() < deadline) {
                stable = committed.endOffsets(tps, Duration.ofSeconds(30));
                ends = uncommitted.endOffsets(tps, Duration.ofSeconds(30));
                if (stable.equals(ends)) {
                    return stable;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
            throw new IllegalStateException("transactions were still open at the read's deadline: last stable "
                    + "offsets " + stable + ", high watermarks " + ends + "\n" + openTransactions(bootstrap, tps));
        }
    }
}
