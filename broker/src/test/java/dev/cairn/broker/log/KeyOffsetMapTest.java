package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The compaction key map: latest offsets per key through its growth, and its bound. */
class KeyOffsetMapTest {

    private static ByteBuffer key(int i) {
        return ByteBuffer.wrap(("key-" + i).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void keepsTheLatestOffsetOfEachKeyWhileGrowing() {
        KeyOffsetMap map = new KeyOffsetMap(10_000);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 10_000; i++) {
                assertTrue(map.put(key(i), round * 10_000L + i));
            }
        }
        assertEquals(10_000, map.size());
        for (int i = 0; i < 10_000; i++) {
            assertEquals(20_000L + i, map.latestOffset(key(i)));
        }
        assertEquals(-1, map.latestOffset(key(10_001)));
    }

    @Test
    void aFullMapRefusesNewKeysButUpdatesKnownOnes() {
        KeyOffsetMap map = new KeyOffsetMap(3);
        assertTrue(map.put(key(1), 1));
        assertTrue(map.put(key(2), 2));
        assertTrue(map.put(key(3), 3));
        assertFalse(map.put(key(4), 4));
        assertTrue(map.put(key(1), 5));
        assertEquals(5, map.latestOffset(key(1)));
        assertEquals(-1, map.latestOffset(key(4)));
        assertEquals(3, map.size());
    }
}
