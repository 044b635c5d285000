package dev.cairn.maelstrom.harness;

import java.util.List;

/**
 * The outcome of one harness run.
 *
 * @param config          what was run
 * @param failures        setup or teardown failures (a node that did not answer init, a node that exited
 *                        early); Maelstrom treats these as a crashed test
 * @param check           the kafka checker's verdict (null when setup failed before the workload ran)
 * @param stats           statistics of the run (null when setup failed)
 * @param nemesisEvents   partition starts and stops with their times
 * @param history         the full history
 */
public record HarnessResult(HarnessConfig config, List<String> failures, CheckResult check, RunStats stats,
                            List<String> nemesisEvents, List<KafkaOp> history) {

    /** Jepsen's exit status for a crashed test. */
    public static final int EXIT_CRASHED = 255;

    /** Valid when nothing failed and the checker found nothing that invalidates the test. */
    public boolean valid() {
        return failures.isEmpty() && check != null && check.valid();
    }

    /** Maelstrom's exit status: 0 valid, 1 invalid, 255 when the test itself crashed. */
    public int exitCode() {
        if (!failures.isEmpty() || check == null) {
            return EXIT_CRASHED;
        }
        return check.valid() ? 0 : 1;
    }
}
