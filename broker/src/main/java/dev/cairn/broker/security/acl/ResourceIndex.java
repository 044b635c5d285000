package dev.cairn.broker.security.acl;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The bindings of one resource type, arranged so that finding those that apply to a resource name costs a few
 * hash lookups instead of a scan of every binding: LITERAL bindings by name, PREFIXED bindings by prefix, and the
 * distinct prefix lengths, so only prefixes some binding actually uses are looked up. Immutable once built.
 */
final class ResourceIndex {

    private final List<AclBinding> all;
    private final Map<String, List<AclBinding>> literal;
    private final Map<String, List<AclBinding>> prefixed;
    private final int[] prefixLengths;

    /** Indexes {@code bindings}, all of one resource type; those neither LITERAL nor PREFIXED are left out. */
    ResourceIndex(Collection<AclBinding> bindings) {
        List<AclBinding> kept = new ArrayList<>();
        Map<String, List<AclBinding>> byName = new HashMap<>();
        Map<String, List<AclBinding>> byPrefix = new HashMap<>();
        TreeSet<Integer> lengths = new TreeSet<>();
        for (AclBinding binding : bindings) {
            if (binding.patternType() == PatternType.LITERAL) {
                byName.computeIfAbsent(binding.resourceName(), name -> new ArrayList<>()).add(binding);
            } else if (binding.patternType() == PatternType.PREFIXED) {
                byPrefix.computeIfAbsent(binding.resourceName(), name -> new ArrayList<>()).add(binding);
                lengths.add(binding.resourceName().length());
            } else {
                continue;
            }
            kept.add(binding);
        }
        this.all = List.copyOf(kept);
        this.literal = freeze(byName);
        this.prefixed = freeze(byPrefix);
        this.prefixLengths = lengths.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Every LITERAL and PREFIXED binding of the type. */
    List<AclBinding> all() {
        return all;
    }

    /**
     * The bindings whose pattern covers the resource {@code name}: LITERAL with that name or "*", and PREFIXED
     * with a prefix of it (the whole name included).
     */
    List<AclBinding> matching(String name) {
        List<AclBinding> found = new ArrayList<>(literal.getOrDefault(name, List.of()));
        if (!AclBinding.WILDCARD_RESOURCE.equals(name)) {
            found.addAll(literal.getOrDefault(AclBinding.WILDCARD_RESOURCE, List.of()));
        }
        for (int length : prefixLengths) {
            if (length > name.length()) {
                break;
            }
            found.addAll(prefixed.getOrDefault(name.substring(0, length), List.of()));
        }
        return found;
    }

    private static Map<String, List<AclBinding>> freeze(Map<String, List<AclBinding>> map) {
        Map<String, List<AclBinding>> frozen = new HashMap<>();
        map.forEach((key, value) -> frozen.put(key, List.copyOf(value)));
        return Map.copyOf(frozen);
    }
}
