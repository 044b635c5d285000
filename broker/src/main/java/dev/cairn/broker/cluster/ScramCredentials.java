package dev.cairn.broker.cluster;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The SCRAM credentials of the cluster's users, as kept in the metadata group: per user, per mechanism (Kafka's
 * mechanism type id: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512), the encoded credential (salt, stored key, server key,
 * iterations; never the password). Opaque bytes here: the security package encodes and checks them. Immutable.
 */
public final class ScramCredentials {
    public static final ScramCredentials EMPTY = new ScramCredentials(new TreeMap<>());
    /** Users with credentials, cluster-wide: a bound on what a client can make the metadata group hold. */
    public static final int USERS_MAX = 10_000;
    /** Encoded credential bytes at most (salt and two keys of at most 256 bytes each, plus framing). */
    public static final int CREDENTIAL_BYTES_MAX = 1024;

    private final SortedMap<String, SortedMap<Byte, byte[]>> byUser;

    private ScramCredentials(SortedMap<String, SortedMap<Byte, byte[]>> byUser) {
        this.byUser = byUser;
    }

    /** Credentials read from a snapshot, built in one pass. */
    static ScramCredentials of(java.util.List<MetadataCommand.ScramUpsertion> entries) {
        SortedMap<String, SortedMap<Byte, byte[]>> byUser = new TreeMap<>();
        for (MetadataCommand.ScramUpsertion e : entries) {
            byUser.computeIfAbsent(e.user(), u -> new TreeMap<>()).put(e.mechanism(), e.credential().clone());
        }
        return new ScramCredentials(byUser);
    }

    /** The credential of {@code user} for {@code mechanism}, if set. */
    public Optional<byte[]> get(String user, byte mechanism) {
        SortedMap<Byte, byte[]> mechanisms = byUser.get(user);
        byte[] credential = mechanisms == null ? null : mechanisms.get(mechanism);
        return Optional.ofNullable(credential == null ? null : credential.clone());
    }

    /** Users and their mechanisms with credentials (no key material), sorted by user. */
    public SortedMap<String, java.util.Set<Byte>> mechanismsByUser() {
        SortedMap<String, java.util.Set<Byte>> view = new TreeMap<>();
        byUser.forEach((user, mechanisms) -> view.put(user, Collections.unmodifiableSet(mechanisms.keySet())));
        return Collections.unmodifiableSortedMap(view);
    }

    public int userCount() {
        return byUser.size();
    }

    ScramCredentials with(String user, byte mechanism, byte[] credential) {
        SortedMap<String, SortedMap<Byte, byte[]>> next = copy();
        next.computeIfAbsent(user, u -> new TreeMap<>()).put(mechanism, credential.clone());
        return new ScramCredentials(next);
    }

    ScramCredentials without(String user, byte mechanism) {
        SortedMap<String, SortedMap<Byte, byte[]>> next = copy();
        SortedMap<Byte, byte[]> mechanisms = next.get(user);
        if (mechanisms != null) {
            mechanisms.remove(mechanism);
            if (mechanisms.isEmpty()) {
                next.remove(user);
            }
        }
        return new ScramCredentials(next);
    }

    /** Every (user, mechanism, credential), sorted, for the snapshot. */
    void forEach(TriConsumer visitor) {
        byUser.forEach((user, mechanisms) -> mechanisms.forEach((mechanism, credential) ->
                visitor.accept(user, mechanism, credential)));
    }

    int size() {
        return byUser.values().stream().mapToInt(Map::size).sum();
    }

    /** One entry of {@link #forEach}. */
    interface TriConsumer {
        void accept(String user, byte mechanism, byte[] credential);
    }

    private SortedMap<String, SortedMap<Byte, byte[]>> copy() {
        SortedMap<String, SortedMap<Byte, byte[]>> next = new TreeMap<>();
        byUser.forEach((user, mechanisms) -> next.put(user, new TreeMap<>(mechanisms)));
        return next;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ScramCredentials that) || that.byUser.size() != byUser.size()) {
            return false;
        }
        for (Map.Entry<String, SortedMap<Byte, byte[]>> e : byUser.entrySet()) {
            SortedMap<Byte, byte[]> theirs = that.byUser.get(e.getKey());
            if (theirs == null || !theirs.keySet().equals(e.getValue().keySet())) {
                return false;
            }
            for (Map.Entry<Byte, byte[]> m : e.getValue().entrySet()) {
                if (!Arrays.equals(m.getValue(), theirs.get(m.getKey()))) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return byUser.keySet().hashCode();
    }

    @Override
    public String toString() {
        return "ScramCredentials" + mechanismsByUser();
    }
}
