package dev.cairn.maelstrom.harness;

/**
 * One history entry, as Jepsen records it: an invocation or a completion of a client operation.
 *
 * @param index   the position in the history (assigned by {@link History})
 * @param process the Jepsen process; a client that crashes or gets an indefinite result continues as a new
 *                process (old process + concurrency), exactly like Jepsen's worker threads
 * @param type    invoke, ok, fail or info
 * @param f       the operation function
 * @param timeNs  nanoseconds since the test started
 * @param value   the operation's value
 * @param error   the error of a fail/info completion (e.g. {@code "net-timeout"}, {@code "code 13: ..."}), or null
 */
public record KafkaOp(int index, int process, OpType type, OpFn f, long timeNs, OpValue value, String error) {

    /** Returns this operation with the given history index. */
    KafkaOp withIndex(int newIndex) {
        return new KafkaOp(newIndex, process, type, f, timeNs, value, error);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append('{').append("index ").append(index).append(", time ").append(timeNs)
            .append(", process ").append(process)
            .append(", ").append(type.name().toLowerCase(java.util.Locale.ROOT))
            .append(' ').append(f.name().toLowerCase(java.util.Locale.ROOT)).append(", ").append(value);
        if (error != null) {
            text.append(", error ").append(error);
        }
        return text.append('}').toString();
    }
}
