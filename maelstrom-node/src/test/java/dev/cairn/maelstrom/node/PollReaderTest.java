package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Polls read one key out of a shared partition (maelstrom.md 3.1): start at the first offset at or above the
 * requested one, ascending, nothing of that key left out, other keys skipped.
 */
class PollReaderTest {
    private Partition partition;
    private final PollReader reader = new PollReader();
    private long raftIndex;

    @BeforeEach
    void open() {
        InMemoryFileIo io = new InMemoryFileIo();
        partition = new Partition("maelstrom", 0, Log.open(io, Path.of("/p"), LogConfig.defaults()
                .withSegmentBytes(4096).withSegmentIndexBytes(4096)), new InMemoryOffsetStore(io));
        partition.claimWriter();
    }

    private long send(String key, String msg) {
        var batch = new RecordBatchBuilder(CompressionType.NONE)
                .append(1_000, key.getBytes(StandardCharsets.UTF_8), msg.getBytes(StandardCharsets.UTF_8)).build();
        Result result = partition.apply(++raftIndex, 1, new Command.Append(batch, 1_000));
        return assertInstanceOf(Result.Appended.class, result).baseOffset();
    }

    private static List<String> values(List<PollReader.Message> messages) {
        return messages.stream().map(m -> new String(m.value(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void returnsOnlyTheKeysMessagesFromTheRequestedOffset() throws Exception {
        long a1 = send("a", "1");
        send("b", "1");
        long a2 = send("a", "2");
        send("b", "2");
        long a3 = send("a", "3");
        List<PollReader.Message> all = reader.read(partition, "a", 0);
        assertEquals(List.of(a1, a2, a3), all.stream().map(PollReader.Message::offset).toList());
        assertEquals(List.of("1", "2", "3"), values(all));
        // A requested offset that holds another key's record starts at the key's next one.
        assertEquals(List.of("2", "3"), values(reader.read(partition, "a", a1 + 1)));
        assertEquals(List.of("3"), values(reader.read(partition, "a", a3)));
    }

    @Test
    void recordsAppendedAfterAPollAreFoundByTheNext() throws Exception {
        long a1 = send("a", "1");
        assertEquals(List.of("1"), values(reader.read(partition, "a", 0)));
        send("b", "1");
        long a2 = send("a", "2");
        assertEquals(List.of(a1, a2), reader.read(partition, "a", 0).stream().map(PollReader.Message::offset)
                .toList());
    }

    @Test
    void aKeyFarBehindTheRequestedOffsetIsFoundWithoutAScanBudget() throws Exception {
        for (int i = 0; i < 5_000; i++) {
            send("other", Integer.toString(i));
        }
        long late = send("late", "x");
        assertEquals(List.of(late), reader.read(partition, "late", 0).stream().map(PollReader.Message::offset)
                .toList());
    }

    @Test
    void anUnknownKeyOrAnOffsetPastTheEndReadsNothing() throws Exception {
        send("a", "1");
        assertTrue(reader.read(partition, "zzz", 0).isEmpty());
        assertTrue(reader.read(partition, "a", 1).isEmpty());
        assertTrue(reader.read(partition, "a", 1_000).isEmpty());
    }

    @Test
    void aLongLogIsReadAcrossSegmentsAndCappedPerPoll() throws Exception {
        for (int i = 0; i < PollReader.MESSAGES_PER_KEY_MAX + 20; i++) {
            send("a", Integer.toString(i));
            send("b", Integer.toString(i));
        }
        List<PollReader.Message> first = reader.read(partition, "a", 0);
        assertEquals(PollReader.MESSAGES_PER_KEY_MAX, first.size());
        for (int i = 0; i < first.size(); i++) {
            assertEquals(Integer.toString(i), new String(first.get(i).value(), StandardCharsets.UTF_8));
        }
        List<PollReader.Message> rest = reader.read(partition, "a", first.get(first.size() - 1).offset() + 1);
        assertEquals(20, rest.size());
        assertEquals(Integer.toString(PollReader.MESSAGES_PER_KEY_MAX), new String(rest.get(0).value(),
                StandardCharsets.UTF_8));
    }
}
