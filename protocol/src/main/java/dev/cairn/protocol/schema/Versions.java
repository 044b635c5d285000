package dev.cairn.protocol.schema;

/**
 * An inclusive range of message versions in the notation of Kafka's JSON specs: {@code "3+"}, {@code "0-10"},
 * {@code "5"} or {@code "none"}.
 */
public final class Versions {
    public static final Versions NONE = new Versions((short) 1, (short) 0);
    public static final Versions ALL = new Versions((short) 0, Short.MAX_VALUE);

    private final short lowest;
    private final short highest;

    private Versions(short lowest, short highest) {
        this.lowest = lowest;
        this.highest = highest;
    }

    public static Versions parse(String spec) {
        if (spec.equals("none")) {
            return NONE;
        }
        if (spec.endsWith("+")) {
            return new Versions(Short.parseShort(spec.substring(0, spec.length() - 1)), Short.MAX_VALUE);
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            short only = Short.parseShort(spec);
            return new Versions(only, only);
        }
        return new Versions(Short.parseShort(spec.substring(0, dash)), Short.parseShort(spec.substring(dash + 1)));
    }

    public boolean contains(short version) {
        return version >= lowest && version <= highest;
    }

    public boolean isEmpty() {
        return lowest > highest;
    }

    public short lowest() {
        return lowest;
    }

    public short highest() {
        return highest;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Versions && ((Versions) other).lowest == lowest
                && ((Versions) other).highest == highest;
    }

    @Override
    public int hashCode() {
        return lowest * 31 + highest;
    }

    @Override
    public String toString() {
        if (isEmpty()) {
            return "none";
        }
        if (highest == Short.MAX_VALUE) {
            return lowest + "+";
        }
        return lowest == highest ? Short.toString(lowest) : lowest + "-" + highest;
    }
}
