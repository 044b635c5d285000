package dev.cairn.broker.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity provider's key set, read from {@code sasl.oauthbearer.jwks.endpoint.url}: a {@code file:} URL (a
 * JWKS file beside the broker) or an {@code http:}/{@code https:} JWKS endpoint. Read once at start (the broker does
 * not start without it) and again by {@link #refresh()} on a timer, so rotated keys are picked up; a failed refresh
 * keeps the keys it had and logs why. Every read is bounded in time ({@link #TIMEOUT}) and size
 * ({@link JsonWebKeys#JWKS_BYTES_MAX}).
 */
public final class JwksSource {
    /** How long one read of an HTTP endpoint may take, connection included. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(JwksSource.class);

    private final URI uri;
    private volatile JsonWebKeys keys;

    private JwksSource(URI uri, JsonWebKeys keys) {
        this.uri = uri;
        this.keys = keys;
    }

    /** Reads the key set at {@code url}; fails with a message naming the URL and the problem. */
    public static JwksSource load(String url) throws IOException {
        URI uri = URI.create(url);
        return new JwksSource(uri, read(uri));
    }

    /** The keys as last read. */
    public JsonWebKeys current() {
        return keys;
    }

    /** Reads the key set again; on failure keeps the current keys. */
    public void refresh() {
        try {
            keys = read(uri);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot refresh the OAUTHBEARER key set from {} (keeping the {} keys read before): {}", uri,
                    keys.size(), e.getMessage());
        }
    }

    private static JsonWebKeys read(URI uri) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        byte[] body;
        if (scheme.equals("file")) {
            Path file = Path.of(uri);
            if (Files.size(file) > JsonWebKeys.JWKS_BYTES_MAX) {
                throw new IOException(uri + " is larger than " + JsonWebKeys.JWKS_BYTES_MAX + " bytes");
            }
            body = Files.readAllBytes(file);
        } else if (scheme.equals("http") || scheme.equals("https")) {
            body = fetch(uri);
        } else {
            throw new IOException(uri + ": only file, http and https key set URLs are supported");
        }
        try {
            return JsonWebKeys.parse(body);
        } catch (IllegalArgumentException e) {
            throw new IOException(uri + ": " + e.getMessage());
        }
    }

    private static byte[] fetch(URI uri) throws IOException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json")
                .GET().build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                if (response.statusCode() != 200) {
                    throw new IOException(uri + " answered HTTP " + response.statusCode());
                }
                byte[] body = in.readNBytes(JsonWebKeys.JWKS_BYTES_MAX + 1);
                if (body.length > JsonWebKeys.JWKS_BYTES_MAX) {
                    throw new IOException(uri + " sent more than " + JsonWebKeys.JWKS_BYTES_MAX + " bytes");
                }
                return body;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + uri, e);
        }
    }
}
