package dev.cairn.client.internal;

import dev.cairn.client.Header;
import dev.cairn.protocol.record.RecordHeader;
import java.util.List;

/** The client's headers as the protocol module's record builder takes them. */
public final class WireHeaders {
    private WireHeaders() {
    }

    public static RecordHeader[] of(List<Header> headers) {
        RecordHeader[] wire = new RecordHeader[headers.size()];
        for (int i = 0; i < wire.length; i++) {
            wire[i] = new RecordHeader(headers.get(i).key(), headers.get(i).value());
        }
        return wire;
    }
}
