package dev.cairn.broker.net;

import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.TlsSettings;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TLS listener's context, rebuilt when its keystore or truststore file changes, so that a renewed certificate (a
 * certificate manager rewriting the files) takes effect without a restart. New connections get the new context;
 * connections already open keep theirs, as in Kafka when a keystore is reconfigured. A change that cannot be used (a
 * file half written, a wrong password) leaves the previous context in place, is logged once, and is tried again when
 * the files change again; the log names the file, never a password.
 */
public final class TlsContextSource {
    private static final Logger LOG = LoggerFactory.getLogger(TlsContextSource.class);

    private final TlsSettings settings;
    private volatile SslContext current;
    private List<FileStamp> builtFrom;
    /** The stamps of the last change that could not be used, so it is reported once, not at every check. */
    private List<FileStamp> refused;

    /** A file's size and modification time, which change when it is rewritten or replaced. */
    private record FileStamp(Path file, long modifiedMs, long size) {
    }

    private TlsContextSource(TlsSettings settings, SslContext initial, List<FileStamp> builtFrom) {
        this.settings = settings;
        this.current = initial;
        this.builtFrom = builtFrom;
    }

    /** Builds the first context; a failure is a {@link ConfigException}, which stops the start. */
    public static TlsContextSource of(TlsSettings settings) {
        List<FileStamp> stamps = stamps(settings);
        return new TlsContextSource(settings, TlsContexts.server(settings), stamps);
    }

    /** The context new connections use. */
    public SslContext current() {
        return current;
    }

    /**
     * Rebuilds the context if a store file changed since it was built; called by one thread at a time (the
     * broker's maintenance timer). Returns whether new connections now get a new context.
     */
    public synchronized boolean reloadIfChanged() {
        List<FileStamp> now = stamps(settings);
        if (now.equals(builtFrom) || now.equals(refused)) {
            return false;
        }
        try {
            current = TlsContexts.server(settings);
            builtFrom = now;
            refused = null;
            LOG.info("TLS stores changed ({}): new connections use the new certificate", settings);
            return true;
        } catch (ConfigException e) {
            refused = now;
            LOG.warn("TLS stores changed but cannot be used yet; connections keep the previous certificate: {}",
                    e.getMessage());
            return false;
        }
    }

    private static List<FileStamp> stamps(TlsSettings settings) {
        List<FileStamp> stamps = new ArrayList<>(2);
        stamps.add(stamp(settings.keystore()));
        if (settings.truststore() != null) {
            stamps.add(stamp(settings.truststore()));
        }
        return stamps;
    }

    private static FileStamp stamp(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(file, attributes.lastModifiedTime().toMillis(), attributes.size());
        } catch (IOException e) {
            // Missing for a moment while it is replaced: a stamp that differs, and a rebuild that fails until it is
            // back.
            return new FileStamp(file, -1, -1);
        }
    }

    @Override
    public String toString() {
        return current instanceof JdkSslContext ? "TLS on the JDK's engine" : "TLS on OpenSSL";
    }
}
