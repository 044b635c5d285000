package dev.cairn.broker.net;

import java.util.concurrent.atomic.LongAdder;

/** Bytes read from and written to client connections (frames with their size prefix), across all of them. */
final class NetworkTraffic {
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();

    void onRead(long bytes) {
        bytesIn.add(bytes);
    }

    void onWrite(long bytes) {
        bytesOut.add(bytes);
    }

    long bytesIn() {
        return bytesIn.sum();
    }

    long bytesOut() {
        return bytesOut.sum();
    }
}
