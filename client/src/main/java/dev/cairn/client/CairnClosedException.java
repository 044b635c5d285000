package dev.cairn.client;

/** The client was closed before or while the operation ran; retrying on the same client cannot help. */
public class CairnClosedException extends CairnException {
    private static final long serialVersionUID = 1L;

    public CairnClosedException(String message) {
        super(message, false);
    }
}
