package dev.cairn.broker.cluster;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The cluster's ACL bindings as the metadata group keeps them: a set of encoded bindings (the security package
 * encodes, decodes and decides; this package only stores), compared by content, so creating a binding twice keeps
 * one. Immutable.
 */
public final class AclStore {
    public static final AclStore EMPTY = new AclStore(new TreeSet<>());
    /** Bindings the cluster holds at most: a bound on what clients can make the metadata group keep. */
    public static final int BINDINGS_MAX = 100_000;
    /** Encoded binding bytes at most (seven fields, strings of at most 1 KiB each). */
    public static final int BINDING_BYTES_MAX = 4096;

    private final SortedSet<ByteBuffer> bindings;

    private AclStore(SortedSet<ByteBuffer> bindings) {
        this.bindings = bindings;
    }

    static AclStore of(Collection<byte[]> encoded) {
        SortedSet<ByteBuffer> set = new TreeSet<>();
        for (byte[] binding : encoded) {
            set.add(ByteBuffer.wrap(binding.clone()).asReadOnlyBuffer());
        }
        return new AclStore(set);
    }

    /** Every encoded binding, each a fresh copy. */
    public List<byte[]> encoded() {
        List<byte[]> copies = new ArrayList<>(bindings.size());
        for (ByteBuffer binding : bindings) {
            byte[] bytes = new byte[binding.remaining()];
            binding.duplicate().get(bytes);
            copies.add(bytes);
        }
        return Collections.unmodifiableList(copies);
    }

    public int size() {
        return bindings.size();
    }

    AclStore with(Collection<byte[]> removed, Collection<byte[]> added) {
        SortedSet<ByteBuffer> next = new TreeSet<>(bindings);
        for (byte[] binding : removed) {
            next.remove(ByteBuffer.wrap(binding));
        }
        for (byte[] binding : added) {
            next.add(ByteBuffer.wrap(binding.clone()).asReadOnlyBuffer());
        }
        return new AclStore(next);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AclStore that && bindings.equals(that.bindings);
    }

    @Override
    public int hashCode() {
        return bindings.hashCode();
    }

    @Override
    public String toString() {
        return "AclStore[" + bindings.size() + " bindings]";
    }
}
