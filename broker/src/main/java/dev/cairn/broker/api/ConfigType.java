package dev.cairn.broker.api;

import dev.cairn.broker.config.ConfigKey;

/** The data type of a described config: the ids of DescribeConfigsResponse's {@code ConfigType} (KIP-569). */
enum ConfigType {
    BOOLEAN(1),
    STRING(2),
    INT(3),
    LONG(5),
    DOUBLE(6),
    LIST(7),
    PASSWORD(9);

    private final byte id;

    ConfigType(int id) {
        this.id = (byte) id;
    }

    byte id() {
        return id;
    }

    /** The type DescribeConfigs reports for a broker key. */
    static ConfigType of(ConfigKey.Kind kind) {
        return switch (kind) {
            case BOOLEAN -> BOOLEAN;
            case STRING -> STRING;
            case INT -> INT;
            case LONG -> LONG;
            case PASSWORD -> PASSWORD;
        };
    }
}
