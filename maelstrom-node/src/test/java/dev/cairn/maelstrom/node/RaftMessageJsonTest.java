package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

class RaftMessageJsonTest {

    private static JsonNode json(String text) throws Exception {
        return MaelstromIo.mapper().readTree(text);
    }

    private static void assertRoundTrip(Message message) throws Exception {
        // Through text, as Maelstrom carries it.
        JsonNode parsed = json(RaftMessageJson.encode(7, message).toString());
        RaftMessageJson.GroupMessage decoded = RaftMessageJson.decode(parsed);
        assertEquals(7, decoded.group());
        assertEquals(message, decoded.message());
    }

    @Test
    void everyMessageKindSurvivesTheTripThroughJson() throws Exception {
        assertRoundTrip(new Message.VoteRequest(1, 2, 5, 10, 4, true));
        assertRoundTrip(new Message.VoteResponse(2, 1, 5, false, false));
        assertRoundTrip(new Message.AppendRequest(1, 3, 6, 10, 5, List.of(new Entry(6, 11, new byte[] {1, 2, 3}),
                new Entry(6, 12, new byte[0])), 9));
        assertRoundTrip(new Message.AppendRequest(1, 3, 6, 12, 6, List.of(), 12));
        assertRoundTrip(new Message.AppendResponse(3, 1, 6, true, 12, 0));
        assertRoundTrip(new Message.Heartbeat(1, 2, 6, 12, true));
        assertRoundTrip(new Message.HeartbeatResponse(2, 1, 6, 12));
        assertRoundTrip(new Message.InstallSnapshot(1, 2, 6, 100, 5));
    }

    @Test
    void aMalformedMessageIsRefusedNotTrusted() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> RaftMessageJson.decode(json("{}")));
        assertThrows(IllegalArgumentException.class, () -> RaftMessageJson.decode(json("[0, \"Z\", 1, 2, 3]")));
        assertThrows(IllegalArgumentException.class, () -> RaftMessageJson.decode(json("[0, \"V\", 1, 2, 3]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"A\", 1, 2, 3, 0, 0, 0, [[0, 1, \"\"]]]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"A\", 1, 2, 3, 0, 0, 0, [[1, 1, \"%%\"]]]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"H\", 1, 2, 3, 4, \"yes\"]")));
        // Shapes the core would take as broken invariants: refused here instead.
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"A\", 1, 2, 3, 0, 0, 0, [[1, 2, \"\"]]]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"A\", 1, 2, 3, 4, 2, 0, [[1, 5, \"\"]]]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"A\", 1, 2, 3, 0, 0, 0, [[4, 1, \"\"]]]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"S\", 1, 2, 3, 0, 0]")));
        assertThrows(IllegalArgumentException.class,
                () -> RaftMessageJson.decode(json("[0, \"V\", 1, 2, -3, 0, 0, false]")));
    }
}
