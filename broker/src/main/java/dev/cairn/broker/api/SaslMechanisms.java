package dev.cairn.broker.api;

import dev.cairn.broker.cluster.ScramCredentials;
import dev.cairn.broker.security.JwtValidator;
import dev.cairn.broker.security.OAuthBearerServer;
import dev.cairn.broker.security.PlainServer;
import dev.cairn.broker.security.SaslMechanismServer;
import dev.cairn.broker.security.ScramCredential;
import dev.cairn.broker.security.ScramMechanism;
import dev.cairn.broker.security.ScramServer;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The SASL mechanisms a listener offers, and a fresh server-side exchange for each login: PLAIN against the users
 * of the listener's JAAS text, SCRAM against the credentials in the metadata group's current image, OAUTHBEARER
 * against the identity provider's key set.
 */
public final class SaslMechanisms {
    private final List<String> enabled;
    private final Map<String, String> plainUsers;
    private final Supplier<ScramCredentials> scramCredentials;
    private final SecureRandom random = new SecureRandom();
    private final long sessionLifetimeMs;
    private final JwtValidator oauthBearer;

    public SaslMechanisms(List<String> enabled, Map<String, String> plainUsers,
            Supplier<ScramCredentials> scramCredentials) {
        this(enabled, plainUsers, scramCredentials, 0);
    }

    /**
     * @param sessionLifetimeMs connections.max.reauth.ms: how long a login lasts before the client must
     *     re-authenticate on the same connection (KIP-368); 0 for as long as the connection lives
     */
    public SaslMechanisms(List<String> enabled, Map<String, String> plainUsers,
            Supplier<ScramCredentials> scramCredentials, long sessionLifetimeMs) {
        this(enabled, plainUsers, scramCredentials, sessionLifetimeMs, null);
    }

    /**
     * @param oauthBearer validates OAUTHBEARER tokens; required when {@code enabled} includes OAUTHBEARER
     */
    public SaslMechanisms(List<String> enabled, Map<String, String> plainUsers,
            Supplier<ScramCredentials> scramCredentials, long sessionLifetimeMs, JwtValidator oauthBearer) {
        if (enabled.contains(OAuthBearerServer.MECHANISM) && oauthBearer == null) {
            throw new IllegalArgumentException("OAUTHBEARER enabled without a token validator");
        }
        this.oauthBearer = oauthBearer;
        this.sessionLifetimeMs = sessionLifetimeMs;
        this.enabled = List.copyOf(enabled);
        this.plainUsers = Map.copyOf(plainUsers);
        this.scramCredentials = scramCredentials;
    }

    public List<String> enabled() {
        return enabled;
    }

    /** connections.max.reauth.ms, 0 for sessions without an end. */
    long sessionLifetimeMs() {
        return sessionLifetimeMs;
    }

    /** A new exchange for {@code mechanism}, or empty when it is not enabled. */
    Optional<SaslMechanismServer> start(String mechanism) {
        if (!enabled.contains(mechanism)) {
            return Optional.empty();
        }
        if (mechanism.equals("PLAIN")) {
            return Optional.of(new PlainServer(user -> Optional.ofNullable(plainUsers.get(user))));
        }
        if (mechanism.equals(OAuthBearerServer.MECHANISM)) {
            return Optional.of(new OAuthBearerServer(oauthBearer, System::currentTimeMillis));
        }
        return ScramMechanism.forName(mechanism).map(scram -> new ScramServer(scram, user -> scramCredentials.get()
                .get(user, (byte) scram.typeId()).map(ScramCredential::decode), random));
    }
}
