package dev.cairn.broker.log;

/**
 * Always-on checks for cheap data-path facts (style.md point 7); expensive checks use Java {@code assert}.
 * The message is formatted only when the check fails, so passing checks cost a branch.
 */
public final class Invariant {
    private Invariant() {
    }

    public static void check(boolean condition, String format) {
        if (!condition) {
            throw new InvariantViolation(format);
        }
    }

    public static void check(boolean condition, String format, long a) {
        if (!condition) {
            throw new InvariantViolation(String.format(format, a));
        }
    }

    public static void check(boolean condition, String format, long a, long b) {
        if (!condition) {
            throw new InvariantViolation(String.format(format, a, b));
        }
    }

    public static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new InvariantViolation(String.format(format, args));
        }
    }
}
