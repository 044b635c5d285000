package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The op mix of Maelstrom's kafka workload (jepsen.tests.kafka over Elle's list-append generator). */
class KafkaOpGeneratorTest {

    @Test
    void mixesSendsPollsAssignsAndCrashesLikeMaelstrom() {
        KafkaOpGenerator generator = new KafkaOpGenerator(10, 16, 2, new Random(7));
        Map<OpFn, Integer> counts = new HashMap<>();
        Map<String, Set<Long>> sentPerKey = new HashMap<>();
        int total = 64_000;
        long stepNs = 10_000_000; // 100 ops/s
        for (int i = 0; i < total; i++) {
            OpValue op = generator.next(i * stepNs);
            if (op instanceof OpValue.Send send) {
                counts.merge(OpFn.SEND, 1, Integer::sum);
                assertTrue(sentPerKey.computeIfAbsent(send.key(), k -> new HashSet<>()).add(send.msg()),
                    "messages are unique per key");
                assertTrue(send.msg() >= 1 && send.msg() <= 16, "at most max-writes-per-key sends per key");
            } else if (op instanceof OpValue.Poll) {
                counts.merge(OpFn.POLL, 1, Integer::sum);
            } else if (op instanceof OpValue.Assign assign) {
                counts.merge(OpFn.ASSIGN, 1, Integer::sum);
                assertTrue(!assign.keys().isEmpty() && !assign.seekToBeginning());
            } else {
                counts.merge(OpFn.CRASH, 1, Integer::sum);
            }
        }
        int sends = counts.get(OpFn.SEND);
        int polls = counts.get(OpFn.POLL);
        assertEquals(1.0, (double) sends / polls, 0.05, "sends and polls are equally likely");
        assertEquals(total / 64.0, counts.get(OpFn.ASSIGN), total / 64.0 * 0.2, "assign about 1 in 64");
        // 640 s of ops with 2 clients: one crash per 30 / 2 = 15 s on average.
        assertEquals(640 / 15.0, counts.get(OpFn.CRASH), 15, "crashes every 30 s per client");
        assertTrue(sentPerKey.size() > 10, "keys retire after 16 sends and fresh keys replace them");
        sentPerKey.values().forEach(messages -> assertTrue(messages.size() <= 16));
    }

    @Test
    void tracksHighestOffsetsOfOkOpsForTheFinalPolls() {
        KafkaOpGenerator generator = new KafkaOpGenerator(10, 16, 2, new Random(7));
        generator.onComplete(new KafkaOp(0, 0, OpType.OK, OpFn.SEND, 0, new OpValue.Send("1", 1, 4L), null));
        generator.onComplete(new KafkaOp(1, 0, OpType.INFO, OpFn.SEND, 0, new OpValue.Send("2", 1, null), null));
        generator.onComplete(new KafkaOp(2, 1, OpType.OK, OpFn.POLL, 0,
            new OpValue.Poll(Map.of("3", List.of(new OffsetMsg(7, 1)))), null));
        assertEquals(Map.of("1", 4L, "3", 7L), generator.maxOffsets());
    }
}
