package dev.cairn.broker.cluster;

/** A change to cluster metadata, replicated through the metadata Raft group and applied in log order. */
public sealed interface MetadataCommand {

    /**
     * A broker announces (or re-announces after restart) its endpoints: Kafka listeners, its Ratis address, and its
     * Cairn Raft engine address when it runs the engine.
     */
    record RegisterBroker(BrokerInfo broker) implements MetadataCommand {
    }

    /**
     * Creates a topic; the proposer chose its id and replica assignment before replication. The command carries no
     * Raft group ids (any in {@code topic} are dropped): applying it assigns them.
     */
    record CreateTopic(TopicInfo topic) implements MetadataCommand {
        public CreateTopic {
            topic = topic.withRaftGroups(java.util.List.of());
        }
    }

    record DeleteTopic(String name) implements MetadataCommand {
    }

    /**
     * Appends partitions {@code firstPartition..firstPartition + replicas.size() - 1} to a topic (CreatePartitions);
     * the proposer chose their replicas before replication. It applies only while {@code topicId} still names the
     * topic and the topic has exactly {@code firstPartition} partitions, so a proposal based on a stale image is
     * rejected rather than appended twice; applying it again once applied is a no-op.
     */
    record AddPartitions(String topic, java.util.UUID topicId, int firstPartition,
            java.util.List<java.util.List<Integer>> replicas) implements MetadataCommand {
        public AddPartitions {
            replicas = replicas.stream().map(java.util.List::copyOf).toList();
        }
    }

    /**
     * A partition leader announces itself and its in-sync replicas. Applied only while the topic id still
     * names the topic, and only when the epoch is not older than the one already known.
     */
    record UpdatePartitionState(java.util.UUID topicId, int partition, PartitionState state)
            implements MetadataCommand {
    }

    /**
     * The metadata leader's view of which registered brokers are dead (not heard from within the broker session
     * timeout). A broker's own registration marks it alive again.
     */
    record UpdateDeadBrokers(java.util.Set<Integer> deadBrokers) implements MetadataCommand {
        public UpdateDeadBrokers {
            deadBrokers = java.util.Set.copyOf(deadBrokers);
        }
    }

    /**
     * A broker proposes the cluster id its data directory holds. The first proposal applied becomes the cluster's
     * id; later ones change nothing, and their brokers adopt the cluster's.
     */
    record ProposeClusterId(String clusterId) implements MetadataCommand {
    }

    /**
     * Changes a topic's configs (IncrementalAlterConfigs, AlterConfigs): with {@code replace}, the topic's configs
     * become exactly {@code set}; otherwise the names in {@code delete} are removed, then {@code set} is applied over
     * the rest. Applies only while {@code topicId} still names the topic. Values were validated by the proposer;
     * partition leaders then carry the result into each partition's log (a Reconfigure command).
     */
    record AlterTopicConfigs(String topic, java.util.UUID topicId, boolean replace, java.util.Map<String, String> set,
            java.util.Set<String> delete) implements MetadataCommand {
        public AlterTopicConfigs {
            set = java.util.Map.copyOf(set);
            delete = java.util.Set.copyOf(delete);
        }
    }

    /**
     * Starts, changes or cancels the reassignment of a partition's replicas (AlterPartitionReassignments): toward
     * {@code target}, or back to the replicas it had before when {@code target} is empty (a cancellation). Applies
     * only while {@code topicId} still names the topic. See {@link PartitionReassignment}.
     */
    record ReassignPartition(String topic, java.util.UUID topicId, int partition, java.util.List<Integer> target)
            implements MetadataCommand {
        public ReassignPartition {
            target = java.util.List.copyOf(target);
        }
    }

    /**
     * The partition's leader reports that its Raft group's voters are exactly {@code target}: the replica list becomes
     * the target and the reassignment ends. Applies only while that reassignment, with that target, is in progress.
     */
    record CompleteReassignment(String topic, java.util.UUID topicId, int partition, java.util.List<Integer> target)
            implements MetadataCommand {
        public CompleteReassignment {
            target = java.util.List.copyOf(target);
        }
    }

    /**
     * Changes the cluster-wide dynamic broker defaults (IncrementalAlterConfigs, AlterConfigs on the default BROKER
     * resource): with {@code replace}, the defaults become exactly {@code set}; otherwise the names in {@code delete}
     * are removed, then {@code set} is applied over the rest. Names and values were validated by the proposer.
     */
    record AlterBrokerDefaults(boolean replace, java.util.Map<String, String> set, java.util.Set<String> delete)
            implements MetadataCommand {
        public AlterBrokerDefaults {
            set = java.util.Map.copyOf(set);
            delete = java.util.Set.copyOf(delete);
        }
    }

    /** Reserves the next block of producer ids for {@code nodeId}'s InitProducerId answers. */
    record AllocateProducerIds(int nodeId) implements MetadataCommand {
    }

    /**
     * Sets and removes SCRAM credentials (AlterUserScramCredentials): removals first, then upserts, in order. A
     * credential is the security package's encoding (salt, stored key, server key, iterations), never a password.
     */
    record AlterScramCredentials(java.util.List<ScramDeletion> deletions, java.util.List<ScramUpsertion> upsertions)
            implements MetadataCommand {
        public AlterScramCredentials {
            deletions = java.util.List.copyOf(deletions);
            upsertions = java.util.List.copyOf(upsertions);
        }
    }

    /** Removes {@code user}'s credential for one mechanism (Kafka's mechanism type id). */
    record ScramDeletion(String user, byte mechanism) {
    }

    /** Sets {@code user}'s credential for one mechanism. Compared by content; printed without the credential. */
    record ScramUpsertion(String user, byte mechanism, byte[] credential) {
        @Override
        public boolean equals(Object other) {
            return other instanceof ScramUpsertion that && user.equals(that.user) && mechanism == that.mechanism
                    && java.util.Arrays.equals(credential, that.credential);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(user, mechanism, java.util.Arrays.hashCode(credential));
        }

        @Override
        public String toString() {
            return "ScramUpsertion[user=" + user + ", mechanism=" + mechanism + "]";
        }
    }

    /**
     * Removes and adds ACL bindings (DeleteAcls, CreateAcls), each in the security package's encoding: removals
     * first. A DeleteAcls filter is resolved to the bindings it matched in the image the broker saw, so applying is
     * plain set arithmetic, the same on every broker.
     */
    record AlterAcls(java.util.List<byte[]> removals, java.util.List<byte[]> additions) implements MetadataCommand {
        public AlterAcls {
            removals = java.util.List.copyOf(removals);
            additions = java.util.List.copyOf(additions);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof AlterAcls that && sameBytes(removals, that.removals)
                    && sameBytes(additions, that.additions);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(removals.size(), additions.size());
        }

        private static boolean sameBytes(java.util.List<byte[]> a, java.util.List<byte[]> b) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!java.util.Arrays.equals(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
    }
}
