package dev.cairn.broker.cluster;

import dev.cairn.broker.cluster.MetadataCommand.AddPartitions;
import dev.cairn.broker.cluster.MetadataCommand.AllocateProducerIds;
import dev.cairn.broker.cluster.MetadataCommand.CreateTopic;
import dev.cairn.broker.cluster.MetadataCommand.DeleteTopic;
import dev.cairn.broker.cluster.MetadataCommand.RegisterBroker;
import dev.cairn.broker.cluster.MetadataCommand.UpdatePartitionState;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The metadata group's deterministic core: registered brokers, topics with their replica assignments and Raft group
 * ids, and the next unallocated producer and Raft group ids. {@link #apply} is called in Raft log order on one
 * thread, reads no clock, and publishes a new immutable {@link MetadataImage} after each change for lock-free
 * readers.
 */
public final class ClusterMetadata {
    /** Producer ids handed to a broker at a time; it asks for another block when one runs out. */
    public static final int PRODUCER_ID_BLOCK_SIZE = 1000;

    private volatile MetadataImage image = MetadataImage.EMPTY;
    private final Consumer<MetadataChange> onChange;

    /**
     * @param onChange called on the apply thread after every change (and after a snapshot is loaded); must return
     *     quickly
     */
    public ClusterMetadata(Consumer<MetadataChange> onChange) {
        this.onChange = onChange;
    }

    public MetadataImage image() {
        return image;
    }

    public MetadataResult apply(long raftIndex, MetadataCommand command) {
        MetadataImage current = image;
        if (command instanceof MetadataCommand.ProposeClusterId propose) {
            String agreed = current.clusterId() != null ? current.clusterId() : propose.clusterId();
            publish(current, current.withClusterId(raftIndex, agreed), command);
            return MetadataResult.OK;
        }
        if (command instanceof MetadataCommand.AlterScramCredentials alter) {
            return alterScram(raftIndex, current, alter);
        }
        if (command instanceof MetadataCommand.AlterAcls alter) {
            AclStore next = current.acls().with(alter.removals(), alter.additions());
            if (next.size() > AclStore.BINDINGS_MAX && next.size() > current.acls().size()) {
                publish(current, current.withAcls(raftIndex, current.acls()), null);
                return new MetadataResult.Rejected(ErrorCode.POLICY_VIOLATION, "the cluster holds "
                        + AclStore.BINDINGS_MAX + " ACL bindings at most");
            }
            publish(current, current.withAcls(raftIndex, next), alter);
            return MetadataResult.OK;
        }
        if (command instanceof CreateTopic create) {
            return createTopic(raftIndex, current, create);
        }
        if (command instanceof AddPartitions add) {
            return addPartitions(raftIndex, current, add);
        }
        if (command instanceof MetadataCommand.AlterTopicConfigs alter) {
            return alterTopicConfigs(raftIndex, current, alter);
        }
        if (command instanceof MetadataCommand.AlterBrokerDefaults alter) {
            return alterBrokerDefaults(raftIndex, current, alter);
        }
        if (command instanceof MetadataCommand.ReassignPartition
                || command instanceof MetadataCommand.CompleteReassignment) {
            return published(current, ReassignmentRules.apply(raftIndex, current, command), command);
        }
        if (command instanceof UpdatePartitionState update) {
            return updatePartitionState(raftIndex, current, update);
        }
        Map<Integer, BrokerInfo> brokers = new TreeMap<>(current.brokers());
        Map<String, TopicInfo> topics = new TreeMap<>(current.topics());
        long nextProducerId = current.nextProducerId();
        Map<TopicPartition, PartitionState> states = new java.util.HashMap<>(current.partitionStates());
        java.util.Set<Integer> dead = new java.util.TreeSet<>(current.deadBrokers());
        MetadataResult result;
        if (command instanceof RegisterBroker r) {
            brokers.put(r.broker().nodeId(), r.broker());
            dead.remove(r.broker().nodeId());
            result = MetadataResult.OK;
        } else if (command instanceof MetadataCommand.UpdateDeadBrokers u) {
            dead.clear();
            dead.addAll(u.deadBrokers());
            dead.retainAll(brokers.keySet());
            result = MetadataResult.OK;
        } else if (command instanceof DeleteTopic d) {
            TopicInfo removed = topics.get(d.name());
            if (removed != null) {
                for (int p = 0; p < removed.partitionCount(); p++) {
                    states.remove(new TopicPartition(d.name(), p));
                }
            }
            if (topics.remove(d.name()) == null) {
                publish(current, current.with(raftIndex, brokers, topics, nextProducerId, states, dead), null);
                return new MetadataResult.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "topic " + d.name() + " does not exist");
            }
            result = MetadataResult.OK;
        } else if (command instanceof AllocateProducerIds) {
            result = new MetadataResult.ProducerIds(nextProducerId, PRODUCER_ID_BLOCK_SIZE);
            nextProducerId += PRODUCER_ID_BLOCK_SIZE;
        } else {
            throw new IllegalArgumentException("unknown metadata command " + command);
        }
        publish(current, current.with(raftIndex, brokers, topics, nextProducerId, states, dead), command);
        return result;
    }

    /**
     * One partition's leadership and in-sync replicas, as its leader publishes them; refused when the partition is
     * unknown or the state is older than the one held. Copies only that topic's states: the metadata group applies
     * one of these per partition and change, thousands after a large topic is created.
     */
    private MetadataResult updatePartitionState(long raftIndex, MetadataImage current, UpdatePartitionState update) {
        Optional<TopicInfo> topic = current.topicById(update.topicId());
        TopicPartition tp = topic.map(t -> new TopicPartition(t.name(), update.partition())).orElse(null);
        PartitionState known = tp == null ? null : current.partitionStates().get(tp);
        if (tp == null || update.partition() < 0 || update.partition() >= topic.get().partitionCount()
                || (known != null && known.leaderEpoch() > update.state().leaderEpoch())) {
            publish(current, current.withTopics(raftIndex, current.topics(), current.nextRaftGroupId()), null);
            return new MetadataResult.Rejected(ErrorCode.FENCED_LEADER_EPOCH, "stale or unknown partition state");
        }
        publish(current, current.withPartitionState(raftIndex, tp, update.state()), update);
        return MetadataResult.OK;
    }

    /** Adds the topic, its partitions numbered with the next Raft group ids. */
    private MetadataResult createTopic(long raftIndex, MetadataImage current, CreateTopic create) {
        TopicInfo topic = create.topic();
        Optional<MetadataResult> rejection = checkCreate(topic, current)
                .or(() -> checkRaftGroupIds(current.nextRaftGroupId(), topic.partitionCount()));
        if (rejection.isPresent()) {
            publish(current, current.withTopics(raftIndex, current.topics(), current.nextRaftGroupId()), null);
            return rejection.get();
        }
        Map<String, TopicInfo> topics = new TreeMap<>(current.topics());
        long nextRaftGroupId = current.nextRaftGroupId();
        topics.put(topic.name(), topic.withRaftGroups(raftGroupIds(nextRaftGroupId, topic.partitionCount())));
        publish(current, current.withTopics(raftIndex, topics, nextRaftGroupId + topic.partitionCount()), create);
        return MetadataResult.OK;
    }

    /**
     * Appends the partitions, numbered with the next Raft group ids when the topic has ids (one created before ids
     * gets none for its new partitions either). A retry of an AddPartitions applied already changes nothing.
     */
    private MetadataResult addPartitions(long raftIndex, MetadataImage current, AddPartitions add) {
        TopicInfo topic = current.topics().get(add.topic());
        Optional<MetadataResult> rejection = checkAddPartitions(add, topic, current.brokers().keySet());
        boolean appends = rejection.isEmpty() && topic.partitionCount() == add.firstPartition();
        int newRaftGroups = appends && !topic.raftGroups().isEmpty() ? add.replicas().size() : 0;
        rejection = rejection.or(() -> checkRaftGroupIds(current.nextRaftGroupId(), newRaftGroups));
        if (rejection.isPresent()) {
            publish(current, current.withTopics(raftIndex, current.topics(), current.nextRaftGroupId()), null);
            return rejection.get();
        }
        Map<String, TopicInfo> topics = new TreeMap<>(current.topics());
        long nextRaftGroupId = current.nextRaftGroupId();
        if (appends) {
            topics.put(add.topic(), topic.withPartitions(add.replicas(), raftGroupIds(nextRaftGroupId, newRaftGroups)));
        }
        publish(current, current.withTopics(raftIndex, topics, nextRaftGroupId + newRaftGroups), add);
        return MetadataResult.OK;
    }

    /**
     * A refusal when {@code count} more partitions would need Raft group ids past
     * {@link MetadataImage#RAFT_GROUP_ID_MAX}: ids are never reused, so the cluster has run out of them.
     */
    private static Optional<MetadataResult> checkRaftGroupIds(long nextRaftGroupId, int count) {
        long last = nextRaftGroupId + count - 1;
        if (count == 0 || last <= MetadataImage.RAFT_GROUP_ID_MAX) {
            return Optional.empty();
        }
        return Optional.of(new MetadataResult.Rejected(ErrorCode.POLICY_VIOLATION, count + " new partition(s) would"
                + " need Raft group ids up to " + last + ", past the last one, " + MetadataImage.RAFT_GROUP_ID_MAX
                + " (ids are never reused)"));
    }

    /** The {@code count} Raft group ids from {@code first} upward. */
    private static List<Integer> raftGroupIds(long first, int count) {
        List<Integer> ids = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(Math.toIntExact(first + i));
        }
        return ids;
    }

    private MetadataResult alterTopicConfigs(long raftIndex, MetadataImage current,
            MetadataCommand.AlterTopicConfigs alter) {
        Map<String, TopicInfo> topics = new TreeMap<>(current.topics());
        TopicInfo topic = topics.get(alter.topic());
        MetadataResult result = MetadataResult.OK;
        if (topic == null || !topic.topicId().equals(alter.topicId())) {
            result = new MetadataResult.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    "topic " + alter.topic() + " does not exist");
        } else {
            Map<String, String> configs = new TreeMap<>(alter.replace() ? Map.of() : topic.configs());
            configs.keySet().removeAll(alter.delete());
            configs.putAll(alter.set());
            if (configs.size() > Limits.TOPIC_CONFIGS_MAX) {
                result = new MetadataResult.Rejected(ErrorCode.INVALID_CONFIG, "a topic holds at most "
                        + Limits.TOPIC_CONFIGS_MAX + " configs");
            } else {
                topics.put(alter.topic(), topic.withConfigs(configs));
            }
        }
        publish(current, current.with(raftIndex, current.brokers(), topics, current.nextProducerId(),
                current.partitionStates(), current.deadBrokers()), result == MetadataResult.OK ? alter : null);
        return result;
    }

    /**
     * Applies removals, then upserts. New users beyond {@link ScramCredentials#USERS_MAX} are refused as a whole
     * command (nothing changes), so the metadata group's size stays bounded whatever clients send.
     */
    private MetadataResult alterScram(long raftIndex, MetadataImage current,
            MetadataCommand.AlterScramCredentials alter) {
        ScramCredentials credentials = current.scramCredentials();
        for (MetadataCommand.ScramDeletion deletion : alter.deletions()) {
            credentials = credentials.without(deletion.user(), deletion.mechanism());
        }
        for (MetadataCommand.ScramUpsertion upsertion : alter.upsertions()) {
            credentials = credentials.with(upsertion.user(), upsertion.mechanism(), upsertion.credential());
        }
        if (credentials.userCount() > ScramCredentials.USERS_MAX
                && credentials.userCount() > current.scramCredentials().userCount()) {
            publish(current, current.withScramCredentials(raftIndex, current.scramCredentials()), null);
            return new MetadataResult.Rejected(ErrorCode.POLICY_VIOLATION, "the cluster holds SCRAM credentials for "
                    + ScramCredentials.USERS_MAX + " users at most");
        }
        publish(current, current.withScramCredentials(raftIndex, credentials), alter);
        return MetadataResult.OK;
    }

    /** Replaces the state with a snapshot's. */
    public void restore(MetadataImage snapshot) {
        MetadataImage previous = image;
        image = snapshot;
        onChange.accept(new MetadataChange(previous, snapshot, null));
    }

    private MetadataResult alterBrokerDefaults(long raftIndex, MetadataImage current,
            MetadataCommand.AlterBrokerDefaults alter) {
        Map<String, String> defaults = new TreeMap<>(alter.replace() ? Map.of() : current.brokerDefaults());
        defaults.keySet().removeAll(alter.delete());
        defaults.putAll(alter.set());
        publish(current, current.withBrokerDefaults(raftIndex, defaults), alter);
        return MetadataResult.OK;
    }

    private MetadataResult published(MetadataImage previous, ReassignmentRules.Outcome outcome,
            MetadataCommand cause) {
        publish(previous, outcome.image(), outcome.changed() ? cause : null);
        return outcome.result();
    }

    /** Publishes the new image; listeners hear of it only when a command changed something. */
    private void publish(MetadataImage previous, MetadataImage next, MetadataCommand cause) {
        image = next;
        if (cause != null) {
            onChange.accept(new MetadataChange(previous, next, cause));
        }
    }

    /**
     * Why {@code add} cannot apply to {@code topic} (null when it does not exist), or empty when it can, including
     * when it was applied already: the topic then ends with exactly the partitions {@code add} carries.
     */
    private static Optional<MetadataResult> checkAddPartitions(AddPartitions add, TopicInfo topic,
            java.util.Set<Integer> registeredBrokers) {
        if (topic == null || !topic.topicId().equals(add.topicId())) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    "topic " + add.topic() + " with id " + add.topicId() + " does not exist"));
        }
        int newCount = add.firstPartition() + add.replicas().size();
        if (topic.partitionCount() == newCount && add.firstPartition() >= 0 && !add.replicas().isEmpty()
                && topic.replicas().subList(add.firstPartition(), newCount).equals(add.replicas())) {
            return Optional.empty();
        }
        if (topic.partitionCount() != add.firstPartition()) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_PARTITIONS, "topic " + add.topic()
                    + " has " + topic.partitionCount() + " partition(s), not the " + add.firstPartition()
                    + " the change was based on (it changed concurrently); try again"));
        }
        if (add.replicas().isEmpty() || newCount > Limits.PARTITIONS_PER_TOPIC_MAX) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_PARTITIONS, "partition count "
                    + newCount + " outside [" + (topic.partitionCount() + 1) + ", "
                    + Limits.PARTITIONS_PER_TOPIC_MAX + "]"));
        }
        for (List<Integer> replicas : add.replicas()) {
            if (replicas.size() != topic.replicationFactor()
                    || replicas.stream().distinct().count() != replicas.size()
                    || !registeredBrokers.containsAll(replicas)) {
                return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "replicas "
                        + replicas + " are not " + topic.replicationFactor() + " distinct registered brokers"));
            }
        }
        return Optional.empty();
    }

    private static Optional<MetadataResult> checkCreate(TopicInfo topic, MetadataImage current) {
        if (current.topics().containsKey(topic.name())) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.TOPIC_ALREADY_EXISTS,
                    "topic " + topic.name() + " already exists"));
        }
        Optional<String> invalid = TopicNames.invalidReason(topic.name());
        if (invalid.isPresent()) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid.get()));
        }
        Optional<String> collision = TopicNames.collision(topic.name(), current.topics().keySet());
        if (collision.isPresent()) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_TOPIC_EXCEPTION, "topic "
                    + topic.name() + " collides with existing topic " + collision.get()
                    + " ('.' and '_' are treated alike)"));
        }
        if (topic.partitionCount() < 1 || topic.partitionCount() > Limits.PARTITIONS_PER_TOPIC_MAX) {
            return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_PARTITIONS, "partition count "
                    + topic.partitionCount() + " outside [1, " + Limits.PARTITIONS_PER_TOPIC_MAX + "]"));
        }
        for (List<Integer> replicas : topic.replicas()) {
            if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size()) {
                return Optional.of(new MetadataResult.Rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                        "replicas " + replicas + " are empty or repeat a broker"));
            }
        }
        return Optional.empty();
    }
}
