package dev.cairn.client;

import dev.cairn.broker.BrokerFixture;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Not a test: Cairn's producer beside kafka-clients' producer against the same broker, same settings (idempotent,
 * acks=all, linger.ms=5 unless --linger-ms says otherwise, batch.size=16384, buffer.memory 32 MiB, no compression).
 *
 * <p>Each round has two phases:
 * <ul>
 *   <li><b>max</b>: each producer in turn, alternating which goes first (A-B, then B-A) so that drift in machine
 *       load hits both, sends as fast as it takes records; reports records/s. Its latency is mostly time spent
 *       queued in buffer.memory (an open loop at saturation), so it is printed but not the latency figure.
 *   <li><b>rate</b>: both producers at once, each on its own topic at a fixed rate that both sustain, so that a
 *       broker stall (an fsync, a GC) hits both; reports latency p50/p90/p99/p99.9 from when each record was due to
 *       its acknowledgement (a late send counts against the producer: no coordinated omission).
 * </ul>
 * Each phase also reports CPU time per record: the sending thread's (in the rate phase mostly its pacing) and the
 * producer's own threads' (sender, network I/O, which also run the callbacks).
 * A warm-up round runs first and is not reported (both JITs are cold). The summary gives the median of the
 * per-round ratios.
 *
 * <p>Options ({@code --name=value}): records (per max phase, default 500000), value-bytes (100), rounds (3), rate
 * (records/s in the rate phase, default 20000), rate-seconds (10), linger-ms (5), bootstrap (a running broker,
 * e.g. Apache Kafka; default: an in-process Cairn broker).
 */
public final class ProducerBenchmark {
    private static final int PARTITIONS = 3;
    private static final long FLUSH_TIMEOUT_MS = 300_000;
    /** Latencies above this (in microseconds) are clamped; a send slower than 5 minutes has failed anyway. */
    private static final long LATENCY_US_MAX = TimeUnit.MINUTES.toMicros(5);
    private static final int WARM_UP_RECORDS = 200_000;
    /** The longest a phase may take before the benchmark gives up. */
    private static final long PHASE_TIMEOUT_MS = 600_000;
    /** Numbers the producers' client ids, so that each one's threads can be found by name. */
    private static final java.util.concurrent.atomic.AtomicInteger PRODUCERS =
            new java.util.concurrent.atomic.AtomicInteger();

    private ProducerBenchmark() {
    }

    /** Called once per record with System.nanoTime() at its acknowledgement, and whether the send failed. */
    private interface Ack {
        void done(long ackNanos, boolean failed);
    }

    /** The two producers behind one small face: send a value, and run a callback when it is acknowledged. */
    private interface BenchProducer extends AutoCloseable {
        void send(String topic, Integer partition, byte[] value, Ack ack) throws Exception;

        void flush() throws Exception;

        /** CPU time so far of the producer's own threads (sender, I/O), in nanoseconds. */
        long backgroundCpuNanos();
    }

    /** One producer's phase: throughput and the latency histogram in microseconds. */
    private record Result(double recordsPerSecond, Histogram latencyUs, long errors, double callerCpuUsPerRecord,
                          double backgroundCpuUsPerRecord) {
        double p99Ms() {
            return latencyUs.getValueAtPercentile(99) / 1000.0;
        }

        String describe() {
            return String.format("%,10.0f rec/s  p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms  p99.9 %7.2f ms  errors %d  "
                    + "cpu/record: send %.2f us, producer threads %.2f us", recordsPerSecond,
                    latencyUs.getValueAtPercentile(50) / 1000.0, latencyUs.getValueAtPercentile(90) / 1000.0, p99Ms(),
                    latencyUs.getValueAtPercentile(99.9) / 1000.0, errors, callerCpuUsPerRecord,
                    backgroundCpuUsPerRecord);
        }
    }

    private record Options(int records, int valueBytes, int rounds, int rate, int rateSeconds, int lingerMs,
                           String bootstrap) {
        static Options parse(String[] args) {
            Map<String, String> named = new java.util.HashMap<>();
            for (String arg : args) {
                String[] pair = arg.replaceFirst("^--", "").split("=", 2);
                if (pair.length != 2) {
                    throw new IllegalArgumentException("expected --name=value, got " + arg);
                }
                named.put(pair[0], pair[1]);
            }
            Options options = new Options(Integer.parseInt(named.getOrDefault("records", "500000")),
                    Integer.parseInt(named.getOrDefault("value-bytes", "100")),
                    Integer.parseInt(named.getOrDefault("rounds", "3")),
                    Integer.parseInt(named.getOrDefault("rate", "20000")),
                    Integer.parseInt(named.getOrDefault("rate-seconds", "10")),
                    Integer.parseInt(named.getOrDefault("linger-ms", "5")),
                    named.get("bootstrap"));
            named.keySet().removeAll(List.of("records", "value-bytes", "rounds", "rate", "rate-seconds", "linger-ms",
                    "bootstrap"));
            if (!named.isEmpty()) {
                throw new IllegalArgumentException("unknown options " + named.keySet());
            }
            return options;
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (options.bootstrap() != null) {
            run(options.bootstrap(), "external", options);
            return;
        }
        Path dataDir = Files.createTempDirectory("cairn-bench");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("num.partitions",
                Integer.toString(PARTITIONS)))) {
            run(broker.bootstrap(), "in-process Cairn", options);
        }
    }

    private static void run(String bootstrap, String brokerName, Options options) throws Exception {
        byte[] value = new byte[options.valueBytes()];
        System.out.printf("broker: %s at %s; max phase %d records, rate phase %d records/s for %d s; %d B values%n",
                brokerName, bootstrap, options.records(), options.rate(), options.rateSeconds(), value.length);
        int lingerMs = options.lingerMs();
        maxPhase(kafka(bootstrap, lingerMs), "warm-kafka", WARM_UP_RECORDS, value);
        maxPhase(cairn(bootstrap, lingerMs), "warm-cairn", WARM_UP_RECORDS, value);
        List<Double> throughputRatios = new ArrayList<>();
        List<Double> p99Ratios = new ArrayList<>();
        int rate = options.rate();
        int rateRecords = rate * options.rateSeconds();
        for (int r = 1; r <= options.rounds(); r++) {
            int round = r;
            boolean kafkaFirst = round % 2 == 1;
            int records = options.records();
            Result[] max = pair(kafkaFirst,
                    () -> maxPhase(kafka(bootstrap, lingerMs), topic("max-kafka", round), records, value),
                    () -> maxPhase(cairn(bootstrap, lingerMs), topic("max-cairn", round), records, value));
            Result[] paced = together(kafkaFirst,
                    () -> ratePhase(kafka(bootstrap, lingerMs), topic("rate-kafka", round), rateRecords, rate, value),
                    () -> ratePhase(cairn(bootstrap, lingerMs), topic("rate-cairn", round), rateRecords, rate, value));
            double throughputRatio = max[1].recordsPerSecond() / max[0].recordsPerSecond();
            double p99Ratio = paced[1].p99Ms() / paced[0].p99Ms();
            throughputRatios.add(throughputRatio);
            p99Ratios.add(p99Ratio);
            System.out.printf("round %d  max   kafka-clients %s%n", round, max[0].describe());
            System.out.printf("round %d  max   cairn         %s   throughput cairn/kafka = %.2f%n", round,
                    max[1].describe(), throughputRatio);
            System.out.printf("round %d  rate  kafka-clients %s%n", round, paced[0].describe());
            System.out.printf("round %d  rate  cairn         %s   p99 cairn/kafka = %.2f%n", round,
                    paced[1].describe(), p99Ratio);
        }
        System.out.printf("median over %d rounds: throughput cairn/kafka = %.2f (higher is better), p99 at %d rec/s "
                        + "cairn/kafka = %.2f (lower is better)%n", options.rounds(), median(throughputRatios),
                options.rate(), median(p99Ratios));
    }

    private interface Phase {
        Result run() throws Exception;
    }

    /** Runs Kafka's and Cairn's phase in the given order; returns {kafka, cairn}. */
    private static Result[] pair(boolean kafkaFirst, Phase kafka, Phase cairn) throws Exception {
        if (kafkaFirst) {
            Result k = kafka.run();
            return new Result[] {k, cairn.run()};
        }
        Result c = cairn.run();
        return new Result[] {kafka.run(), c};
    }

    /**
     * Runs Kafka's and Cairn's phase at the same time, each on its own thread, starting the one named first a little
     * ahead (alternated per round, like the max phase); returns {kafka, cairn}.
     */
    private static Result[] together(boolean kafkaFirst, Phase kafka, Phase cairn) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<Result> k;
            java.util.concurrent.Future<Result> c;
            if (kafkaFirst) {
                k = pool.submit(kafka::run);
                c = pool.submit(cairn::run);
            } else {
                c = pool.submit(cairn::run);
                k = pool.submit(kafka::run);
            }
            return new Result[] {k.get(PHASE_TIMEOUT_MS, TimeUnit.MILLISECONDS),
                    c.get(PHASE_TIMEOUT_MS, TimeUnit.MILLISECONDS)};
        } finally {
            pool.shutdownNow();
        }
    }

    private static String topic(String name, int round) {
        return "bench-" + name + "-" + round;
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static Result maxPhase(BenchProducer producer, String topic, int records, byte[] value) throws Exception {
        Histogram latency = new ConcurrentHistogram(LATENCY_US_MAX, 3);
        LongAdder errors = new LongAdder();
        try (producer) {
            warmTopic(producer, topic, value);
            CpuClock cpu = new CpuClock(producer);
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                long sentNs = System.nanoTime();
                producer.send(topic, null, value, (ackNs, failed) -> record(latency, errors, ackNs - sentNs, failed));
            }
            producer.flush();
            return cpu.result(records / ((System.nanoTime() - start) / 1e9), latency, errors.sum(), records);
        }
    }

    /** Sends record i when it is due (start + i/rate); latency runs from the due time, not the send call. */
    private static Result ratePhase(BenchProducer producer, String topic, int records, int rate, byte[] value)
            throws Exception {
        Histogram latency = new ConcurrentHistogram(LATENCY_US_MAX, 3);
        LongAdder errors = new LongAdder();
        double intervalNs = 1e9 / rate;
        try (producer) {
            warmTopic(producer, topic, value);
            CpuClock cpu = new CpuClock(producer);
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                long dueNs = start + (long) (i * intervalNs);
                long aheadNs = dueNs - System.nanoTime();
                if (aheadNs > 0) {
                    LockSupport.parkNanos(aheadNs);
                }
                producer.send(topic, null, value, (ackNs, failed) -> record(latency, errors, ackNs - dueNs, failed));
            }
            producer.flush();
            return cpu.result(records / ((System.nanoTime() - start) / 1e9), latency, errors.sum(), records);
        }
    }

    /**
     * CPU time spent by one phase: the calling thread's (the send calls; in the rate phase it also paces) and the
     * producer's own threads'. Callbacks run on the producer's threads in both clients.
     */
    private static final class CpuClock {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private final BenchProducer producer;
        private final long callerStartNs;
        private final long backgroundStartNs;

        CpuClock(BenchProducer producer) {
            this.producer = producer;
            this.callerStartNs = THREADS.getCurrentThreadCpuTime();
            this.backgroundStartNs = producer.backgroundCpuNanos();
        }

        Result result(double recordsPerSecond, Histogram latencyUs, long errors, int records) {
            double callerUs = (THREADS.getCurrentThreadCpuTime() - callerStartNs) / 1e3 / records;
            double backgroundUs = (producer.backgroundCpuNanos() - backgroundStartNs) / 1e3 / records;
            return new Result(recordsPerSecond, latencyUs, errors, callerUs, backgroundUs);
        }

        /** The summed CPU time of the live threads whose name passes the filter. */
        static long threadsCpuNanos(java.util.function.Predicate<String> name) {
            long total = 0;
            for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
                if (info != null && name.test(info.getThreadName())) {
                    total += Math.max(0, THREADS.getThreadCpuTime(info.getThreadId()));
                }
            }
            return total;
        }
    }

    /** One acknowledged record per partition first, so that metadata and the producer id are in place. */
    private static void warmTopic(BenchProducer producer, String topic, byte[] value) throws Exception {
        for (int p = 0; p < PARTITIONS; p++) {
            producer.send(topic, p, value, (ackNs, failed) -> { });
        }
        producer.flush();
    }

    private static void record(Histogram histogram, LongAdder errors, long latencyNs, boolean failed) {
        if (failed) {
            errors.increment();
            return;
        }
        histogram.recordValue(Math.max(0, Math.min(LATENCY_US_MAX, latencyNs / 1000)));
    }

    private static BenchProducer kafka(String bootstrap, int lingerMs) {
        String clientId = "bench-kafka-" + PRODUCERS.incrementAndGet();
        KafkaProducer<byte[], byte[]> producer = KafkaOracle.producer(bootstrap, Map.of("acks", "all",
                "linger.ms", lingerMs, "batch.size", 16_384, "enable.idempotence", true, "client.id", clientId));
        return new BenchProducer() {
            @Override
            public void send(String topic, Integer partition, byte[] value, Ack ack) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition, null, value),
                        (metadata, error) -> ack.done(System.nanoTime(), error != null));
            }

            @Override
            public void flush() {
                producer.flush();
            }

            @Override
            public long backgroundCpuNanos() {
                return CpuClock.threadsCpuNanos(name -> name.endsWith("| " + clientId));
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }

    private static BenchProducer cairn(String bootstrap, int lingerMs) {
        String clientId = "bench-cairn-" + PRODUCERS.incrementAndGet();
        CairnProducer producer = CairnProducer.create(ProducerConfig.builder().bootstrapServers(bootstrap)
                .clientId(clientId).acks("all").lingerMs(lingerMs).batchSizeBytes(16_384).idempotence(true).build());
        return new BenchProducer() {
            @Override
            public void send(String topic, Integer partition, byte[] value, Ack ack) {
                producer.send(new ProducerRecord(topic, partition, null, null, value, List.of()))
                        .whenComplete((metadata, error) -> ack.done(System.nanoTime(), error != null));
            }

            @Override
            public void flush() {
                producer.flush(Duration.ofMillis(FLUSH_TIMEOUT_MS));
            }

            @Override
            public long backgroundCpuNanos() {
                // The sender thread carries the client id; the connections' reader threads are named by broker,
                // and while a phase runs this is the only Cairn producer with connections.
                return CpuClock.threadsCpuNanos(name -> name.equals("cairn-producer-sender-" + clientId)
                        || name.startsWith("cairn-io-"));
            }

            @Override
            public void close() {
                producer.close();
            }
        };
    }
}
