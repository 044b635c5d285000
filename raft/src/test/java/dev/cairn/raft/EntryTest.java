package dev.cairn.raft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EntryTest {
    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aTailedEntryIsItsHeadThenItsTailAndEqualsTheSameBytesInOneArray() {
        ByteBuffer payload = ByteBuffer.wrap(bytes("xxpayloadyy")).position(2).limit(9);
        Entry tailed = new Entry(3, 7, bytes("head:"), payload);
        payload.position(0).limit(11);   // the caller's view moving does not move the entry's

        assertEquals(12, tailed.dataLength());
        assertArrayEquals(bytes("head:payload"), tailed.data());
        ByteBuffer out = ByteBuffer.allocate(12);
        tailed.writeData(out);
        assertArrayEquals(bytes("head:payload"), out.array());
        assertEquals(new Entry(3, 7, bytes("head:payload")), tailed);
        assertEquals(new Entry(3, 7, bytes("head:payload")).hashCode(), tailed.hashCode());
        assertEquals(7, tailed.tail().remaining(), "written twice, still whole");
    }

    @Test
    void anEntryWithoutTailHandsOutItsArrayWithoutACopy() {
        byte[] data = bytes("all here");
        Entry entry = new Entry(1, 1, data);
        assertSame(data, entry.data());
        assertSame(Entry.NO_TAIL, entry.tail());
        assertSame(Entry.NO_TAIL, new Entry(1, 1, data, ByteBuffer.allocate(0)).tail());
    }

    @Test
    void aHeapTailStaysWritableSoReadersGetItsArray() {
        Entry tailed = new Entry(1, 1, bytes("h"), ByteBuffer.wrap(bytes("batch")));
        assertTrue(tailed.tail().hasArray(), "CRC32C and channel writes take their fast paths on an array");
    }

    @Test
    void anEntryWhoseTailIsHeldCountsItsBytesRefusesToJoinThemAndTakesThemBack() {
        Entry held = Entry.withHeldTail(2, 5, bytes("placement"), 6);
        assertTrue(held.tailHeld());
        assertTrue(held.hasTail());
        assertEquals(15, held.dataLength());
        assertThrows(IllegalStateException.class, held::data);
        assertThrows(IllegalStateException.class, () -> held.writeData(ByteBuffer.allocate(15)));
        assertEquals(Entry.withHeldTail(2, 5, bytes("placement"), 6), held);
        assertNotEquals(Entry.withHeldTail(2, 5, bytes("placement"), 7), held);

        Entry whole = held.withTail(ByteBuffer.wrap(bytes("batch!")));
        assertFalse(whole.tailHeld());
        assertArrayEquals(bytes("placementbatch!"), whole.data());
        assertThrows(Error.class, () -> held.withTail(ByteBuffer.wrap(bytes("short"))));
    }
}
