package dev.cairn.client;

/**
 * The root of every exception Cairn's client throws or completes a future with. {@link #isRetriable()} tells the
 * caller whether trying the same operation again can succeed: a timeout or a lost connection can, a record that is
 * too large or a misconfiguration cannot.
 */
public class CairnException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean retriable;

    public CairnException(String message, boolean retriable) {
        super(message);
        this.retriable = retriable;
    }

    public CairnException(String message, boolean retriable, Throwable cause) {
        super(message, cause);
        this.retriable = retriable;
    }

    /** True when repeating the operation (possibly after a metadata refresh) may succeed. */
    public boolean isRetriable() {
        return retriable;
    }
}
