package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker on hand-written histories: one small history per anomaly class of Jepsen's kafka checker
 * ({@code jepsen.tests.kafka/analysis}, see maelstrom.md section 3.3), and a clean history that passes.
 */
class KafkaCheckerTest {

    /** A tiny history DSL: each call appends an invocation and its completion for one process. */
    private static final class Transcript {
        private final History history = new History();
        private long timeNs;

        Transcript send(int process, String key, long msg, Long offset, OpType outcome) {
            history.record(new KafkaOp(0, process, OpType.INVOKE, OpFn.SEND, timeNs++,
                new OpValue.Send(key, msg, null), null));
            history.record(new KafkaOp(0, process, outcome, OpFn.SEND, timeNs++,
                new OpValue.Send(key, msg, outcome == OpType.OK ? offset : null),
                outcome == OpType.OK ? null : "test"));
            return this;
        }

        Transcript sendOk(int process, String key, long msg, long offset) {
            return send(process, key, msg, offset, OpType.OK);
        }

        /** An ok poll; {@code pairs} is offset, msg, offset, msg, ... for one key. */
        Transcript poll(int process, String key, long... pairs) {
            List<OffsetMsg> msgs = new ArrayList<>();
            for (int i = 0; i < pairs.length; i += 2) {
                msgs.add(new OffsetMsg(pairs[i], pairs[i + 1]));
            }
            Map<String, List<OffsetMsg>> polled = new LinkedHashMap<>();
            polled.put(key, msgs);
            history.record(new KafkaOp(0, process, OpType.INVOKE, OpFn.POLL, timeNs++, new OpValue.Poll(null), null));
            history.record(new KafkaOp(0, process, OpType.OK, OpFn.POLL, timeNs++, new OpValue.Poll(polled), null));
            return this;
        }

        Transcript assign(int process, String... keys) {
            OpValue.Assign value = new OpValue.Assign(List.of(keys), false);
            history.record(new KafkaOp(0, process, OpType.INVOKE, OpFn.ASSIGN, timeNs++, value, null));
            history.record(new KafkaOp(0, process, OpType.OK, OpFn.ASSIGN, timeNs++, value, null));
            return this;
        }

        CheckResult check() {
            return KafkaChecker.check(history.snapshot());
        }
    }

    private static void assertOnly(CheckResult result, String... types) {
        assertEquals(List.of(types), result.errorTypes(), () -> "anomalies: " + result.anomalies());
        assertFalse(result.valid());
    }

    @Test
    void cleanHistoryIsValid() {
        CheckResult result = new Transcript()
            .assign(0, "1").sendOk(0, "1", 1, 0).sendOk(1, "1", 2, 1).sendOk(0, "1", 3, 2)
            .poll(0, "1", 0, 1, 1, 2).poll(0, "1", 2, 3)
            .poll(1, "1", 0, 1, 1, 2, 2, 3)
            .check();
        assertTrue(result.valid(), () -> "anomalies: " + result.anomalies());
        assertTrue(result.anomalies().isEmpty());
        assertTrue(result.unseenCounts().isEmpty());
    }

    @Test
    void sparseOffsetsAreNotSkips() {
        // Offsets may be sparse (maelstrom.md 3.1): skips are measured by log position.
        CheckResult result = new Transcript()
            .assign(0, "1").sendOk(0, "1", 1, 10).sendOk(0, "1", 2, 20)
            .poll(0, "1", 10, 1).poll(0, "1", 20, 2)
            .check();
        assertTrue(result.valid(), () -> "anomalies: " + result.anomalies());
    }

    @Test
    void lostWriteIsAnAcknowledgedSendBelowTheHighestPolledPosition() {
        // Message 2 was acknowledged at offset 1; a poll saw offset 2 but nobody ever saw offset 1.
        CheckResult result = new Transcript()
            .assign(0, "1").sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1).sendOk(1, "1", 3, 2)
            .poll(0, "1", 0, 1).poll(2, "1", 2, 3)
            .check();
        assertEquals(List.of("lost-write", "unseen"), result.errorTypes());
        assertEquals(1, result.anomalies().get("lost-write").count());
        assertTrue(result.anomalies().get("lost-write").examples().get(0).contains("message 2"));
        assertEquals(Map.of("1", 1), result.unseenCounts());
        assertFalse(result.valid());
    }

    @Test
    void unseenAloneMakesTheTestInvalid() {
        // The last acknowledged send is above every polled position: not lost, but unseen.
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 0).sendOk(0, "1", 2, 1).poll(1, "1", 0, 1)
            .check();
        assertOnly(result, "unseen");
        assertEquals(Map.of("1", 1), result.unseenCounts());
    }

    @Test
    void duplicateIsOneMessageAtTwoOffsets() {
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 0).sendOk(0, "1", 2, 1)
            .poll(1, "1", 0, 1, 1, 2, 2, 1)
            .check();
        assertTrue(result.errorTypes().contains("duplicate"), () -> "anomalies: " + result.anomalies());
        assertFalse(result.valid());
    }

    @Test
    void inconsistentOffsetsIsOneOffsetWithTwoMessages() {
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 0).sendOk(1, "1", 2, 0)
            .poll(2, "1", 0, 1)
            .check();
        assertTrue(result.errorTypes().contains("inconsistent-offsets"), () -> "anomalies: " + result.anomalies());
        assertFalse(result.valid());
    }

    @Test
    void nonmonotonicSendIsAProcessSendingBackwardsInTheLog() {
        // Process 0 sent 1 then 2, but 2 landed before 1.
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 1).sendOk(0, "1", 2, 0)
            .poll(1, "1", 0, 2, 1, 1)
            .check();
        assertOnly(result, "nonmonotonic-send");
    }

    @Test
    void nonmonotonicPollIsAProcessReadingTheSamePositionAgain() {
        CheckResult result = new Transcript()
            .sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1)
            .assign(0, "1").poll(0, "1", 0, 1, 1, 2).poll(0, "1", 1, 2)
            .check();
        assertOnly(result, "nonmonotonic-poll");
    }

    @Test
    void assignForgetsPollPositionsSoRewindingAfterAssignIsAllowed() {
        CheckResult result = new Transcript()
            .sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1).sendOk(1, "1", 3, 2)
            .assign(0, "1").poll(0, "1", 0, 1, 1, 2).assign(0, "2").assign(0, "1").poll(0, "1", 0, 1, 1, 2, 2, 3)
            .check();
        assertTrue(result.valid(), () -> "anomalies: " + result.anomalies());
    }

    @Test
    void pollSkipIsAProcessJumpingOverAKnownPosition() {
        CheckResult result = new Transcript()
            .sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1).sendOk(1, "1", 3, 2)
            .poll(2, "1", 0, 1, 1, 2, 2, 3)
            .assign(0, "1").poll(0, "1", 0, 1).poll(0, "1", 2, 3)
            .check();
        assertOnly(result, "poll-skip");
    }

    @Test
    void intPollSkipIsAGapInsideOnePoll() {
        CheckResult result = new Transcript()
            .sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1).sendOk(1, "1", 3, 2)
            .poll(2, "1", 0, 1, 1, 2, 2, 3)
            .poll(0, "1", 0, 1, 2, 3)
            .check();
        assertOnly(result, "int-poll-skip");
    }

    @Test
    void intNonmonotonicPollIsABackwardStepInsideOnePoll() {
        CheckResult result = new Transcript()
            .sendOk(1, "1", 1, 0).sendOk(1, "1", 2, 1)
            .poll(0, "1", 0, 1, 1, 2, 0, 1)
            .check();
        assertOnly(result, "int-nonmonotonic-poll");
    }

    @Test
    void g1aIsAPollOfADefinitelyFailedSend() {
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 0).send(0, "1", 2, null, OpType.FAIL)
            .poll(1, "1", 0, 1, 1, 2)
            .check();
        assertOnly(result, "G1a");
    }

    @Test
    void indefiniteSendThatWasReadCountsAsCommittedAndOneNeverReadIsNotLost() {
        // Message 2 (info) was read, so it joins the version order; message 3 (info) was never read: no anomaly.
        CheckResult result = new Transcript()
            .sendOk(0, "1", 1, 0).send(0, "1", 2, null, OpType.INFO).send(1, "1", 3, null, OpType.INFO)
            .sendOk(1, "1", 4, 2)
            .poll(2, "1", 0, 1, 1, 2, 2, 4)
            .check();
        assertTrue(result.valid(), () -> "anomalies: " + result.anomalies());
    }

    @Test
    void everyFunctionNeedsAnOkCompletion() {
        // Jepsen's stats checker: a poll that never succeeds invalidates the test.
        History history = new History();
        history.record(new KafkaOp(0, 0, OpType.INVOKE, OpFn.POLL, 0, new OpValue.Poll(null), null));
        history.record(new KafkaOp(0, 0, OpType.INFO, OpFn.POLL, 1, new OpValue.Poll(null), "net-timeout"));
        CheckResult result = KafkaChecker.check(history.snapshot());
        assertEquals(List.of(OpFn.POLL), result.fnsWithoutOk());
        assertFalse(result.valid());
    }
}
