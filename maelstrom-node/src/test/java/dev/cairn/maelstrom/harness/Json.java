package dev.cairn.maelstrom.harness;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The harness's one JSON mapper (thread-safe once configured). */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }
}
