package dev.cairn.bench.load;

/**
 * One load run, as the command line describes it, checked before anything connects.
 *
 * @param bootstrap the broker list, host:port,...
 * @param topic the topic to create (it must not exist) and load
 * @param workload what to measure: produce then consume, or end-to-end latency
 * @param recordBytes the size of each record value
 * @param partitions the topic's partition count
 * @param replicationFactor the topic's replication factor
 * @param producers concurrent producers, each with its own client and thread
 * @param consumers concurrent consumers, each assigned a share of the partitions
 * @param acks acks for the producers: all, 1 or 0
 * @param sync whether each producer sends one record at a time and waits for its acknowledgement (linger 0)
 * @param batchBytes the producers' batch.size
 * @param lingerMs the producers' linger.ms
 * @param rateRecordsPerSec the target rate over all producers; 0 means as fast as possible
 * @param durationSec how long producers send
 * @param warmupSec the first seconds of sending, whose records are not counted
 * @param consumeTimeoutSec the longest the consume phase (or the e2e drain) may take
 */
public record LoadSpec(String bootstrap, String topic, Workload workload, int recordBytes, int partitions,
                       int replicationFactor, int producers, int consumers, String acks, boolean sync,
                       int batchBytes, int lingerMs, int rateRecordsPerSec, int durationSec, int warmupSec,
                       int consumeTimeoutSec) {
    /** The largest value the tool makes: Kafka's and Cairn's default message.max.bytes is 1048588. */
    public static final int RECORD_BYTES_MAX = 1_000_000;
    /** e2e records carry the send time in their first 8 bytes. */
    public static final int RECORD_BYTES_MIN = 8;
    public static final int CLIENTS_MAX = 64;
    public static final int PARTITIONS_MAX = 1024;
    public static final int DURATION_SEC_MAX = 3600;

    /** What a run measures. */
    public enum Workload {
        /** Producers send for the duration; then consumers read everything back from the start. */
        PRODUCE_CONSUME,
        /** Producers and consumers run together; latency is receive time minus the stamped send time. */
        E2E
    }

    public LoadSpec {
        require(recordBytes >= RECORD_BYTES_MIN && recordBytes <= RECORD_BYTES_MAX, "record size", recordBytes,
                RECORD_BYTES_MIN, RECORD_BYTES_MAX);
        require(partitions >= 1 && partitions <= PARTITIONS_MAX, "partitions", partitions, 1, PARTITIONS_MAX);
        require(replicationFactor >= 1 && replicationFactor <= 16, "replication factor", replicationFactor, 1, 16);
        require(producers >= 1 && producers <= CLIENTS_MAX, "producers", producers, 1, CLIENTS_MAX);
        require(consumers >= 0 && consumers <= CLIENTS_MAX, "consumers", consumers, 0, CLIENTS_MAX);
        require(durationSec >= 1 && durationSec <= DURATION_SEC_MAX, "duration", durationSec, 1, DURATION_SEC_MAX);
        require(warmupSec >= 0 && warmupSec < durationSec, "warmup", warmupSec, 0, durationSec - 1);
        require(consumeTimeoutSec >= 1 && consumeTimeoutSec <= DURATION_SEC_MAX, "consume timeout",
                consumeTimeoutSec, 1, DURATION_SEC_MAX);
        require(rateRecordsPerSec >= 0, "rate", rateRecordsPerSec, 0, Integer.MAX_VALUE);
        require(batchBytes >= 1, "batch size", batchBytes, 1, Integer.MAX_VALUE);
        require(lingerMs >= 0, "linger", lingerMs, 0, Integer.MAX_VALUE);
        if (!acks.equals("all") && !acks.equals("1") && !acks.equals("0")) {
            throw new IllegalArgumentException("acks must be all, 1 or 0, not '" + acks + "'");
        }
        if (workload == Workload.E2E && consumers < 1) {
            throw new IllegalArgumentException("an e2e run needs at least one consumer");
        }
    }

    private static void require(boolean ok, String what, long value, long min, long max) {
        if (!ok) {
            throw new IllegalArgumentException(what + " " + value + " is outside [" + min + ", " + max + "]");
        }
    }

    /** The per-producer rate in records/s, or 0 for as fast as possible. */
    public double producerRate() {
        return rateRecordsPerSec == 0 ? 0 : (double) rateRecordsPerSec / producers;
    }

    /** A short description of the producer style: sync, or batch with its batch size and linger. */
    public String sendMode() {
        return sync ? "sync" : "batch" + batchBytes + "/linger" + lingerMs;
    }
}
