package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** {@link ProduceHandler#allOf}, which every handler that answers per partition or per topic joins its futures with. */
class ProduceHandlerAllOfTest {

    @Test
    void oneFutureIsAnsweredAsAListOfItsValueOnceItCompletes() {
        CompletableFuture<String> only = new CompletableFuture<>();
        CompletableFuture<List<String>> all = ProduceHandler.allOf(List.of(only));
        assertFalse(all.isDone());
        only.complete("p0");
        assertEquals(List.of("p0"), all.join());
    }

    @Test
    void severalKeepTheirRequestOrderWhateverOrderTheyCompleteIn() {
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        CompletableFuture<String> third = new CompletableFuture<>();
        CompletableFuture<List<String>> all = ProduceHandler.allOf(List.of(first, second, third));
        third.complete("p2");
        first.complete("p0");
        assertFalse(all.isDone());
        second.complete("p1");
        assertEquals(List.of("p0", "p1", "p2"), all.join());
        assertThrows(UnsupportedOperationException.class, () -> all.join().add("p3"));
    }

    @Test
    void nullValuesAreKeptForHandlersWhoseFuturesCarryNone() {
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        assertEquals(Arrays.asList((Void) null), ProduceHandler.allOf(List.of(done)).join());
        assertEquals(Arrays.asList(null, null), ProduceHandler.allOf(List.of(done, done)).join());
    }

    @Test
    void aFailureOfAnyFailsTheWhole() {
        IllegalStateException boom = new IllegalStateException("boom");
        CompletableFuture<List<String>> one = ProduceHandler.allOf(List.of(CompletableFuture.failedFuture(boom)));
        CompletableFuture<List<String>> two = ProduceHandler.allOf(List.of(CompletableFuture.completedFuture("p0"),
                CompletableFuture.failedFuture(boom)));
        for (CompletableFuture<List<String>> all : List.of(one, two)) {
            assertTrue(all.isCompletedExceptionally());
            assertSame(boom, assertThrows(CompletionException.class, all::join).getCause());
        }
    }

    @Test
    void noFuturesIsAnEmptyList() {
        assertEquals(List.of(), ProduceHandler.<String>allOf(List.of()).join());
    }
}
