"""confluent-kafka (librdkafka) for Python: the admin calls Cairn serves, then a consumer group round trip.

Usage: confluent_admin.py BOOTSTRAP PREFIX
Creates a topic with configs, grows it, describes its configs and the cluster, lists offsets, runs a two-member
consumer group over it with commits, lists and describes the group, then deletes the topic. Every answer is checked
against what Apache Kafka gives for the same calls. Exits 0 on success and prints one line per step.
"""
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions,
                                   NewTopic, OffsetSpec, ResourceType)

bootstrap, prefix = sys.argv[1], sys.argv[2]
topic = prefix + "-admin"
group = prefix + "-group"
admin = AdminClient({"bootstrap.servers": bootstrap})
WAIT_S = 60


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)


def result(futures):
    return {key: future.result(timeout=WAIT_S) for key, future in futures.items()}


result(admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1,
                                     config={"retention.ms": "3600000", "compression.type": "zstd"})],
                           request_timeout=WAIT_S))
print("create_topics ok")
try:
    result(admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)]))
    sys.exit("FAILED: creating an existing topic succeeded")
except KafkaException as e:
    check(e.args[0].name() == "TOPIC_ALREADY_EXISTS", f"existing topic: {e}")
print("create_topics of an existing topic: TOPIC_ALREADY_EXISTS")

result(admin.create_partitions([NewPartitions(topic, 4)], request_timeout=WAIT_S))
deadline = time.time() + WAIT_S
partitions = 0
while partitions != 4 and time.time() < deadline:
    partitions = len(admin.list_topics(topic, timeout=WAIT_S).topics[topic].partitions)
check(partitions == 4, f"after create_partitions the topic has {partitions} partitions")
print("create_partitions ok: 4 partitions")

configs = list(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)]).values())[0].result(WAIT_S)
check(configs["retention.ms"].value == "3600000", f"retention.ms {configs['retention.ms'].value}")
check(configs["compression.type"].value == "zstd", f"compression.type {configs['compression.type'].value}")
check(configs["segment.bytes"].is_default, "segment.bytes is a default")
print(f"describe_configs ok: {len(configs)} configs")

# IncrementalAlterConfigs, then the older AlterConfigs, which replaces the topic's whole set.
resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
    ConfigEntry("retention.ms", "7200000", incremental_operation=AlterConfigOpType.SET),
    ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
result(admin.incremental_alter_configs([resource]))
configs = list(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)]).values())[0].result(WAIT_S)
check(configs["retention.ms"].value == "7200000", f"altered retention.ms {configs['retention.ms'].value}")
check(configs["cleanup.policy"].value == "delete,compact", f"appended cleanup.policy {configs['cleanup.policy'].value}")
try:
    result(admin.incremental_alter_configs([ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("no.such.config", "1", incremental_operation=AlterConfigOpType.SET)])]))
    sys.exit("FAILED: an unknown config was accepted")
except KafkaException as e:
    check(e.args[0].name() == "INVALID_CONFIG", f"unknown config: {e}")
result(admin.alter_configs([ConfigResource(ResourceType.TOPIC, topic,
                                           set_config={"retention.ms": "3600000", "compression.type": "zstd"})]))
configs = list(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)]).values())[0].result(WAIT_S)
check(configs["cleanup.policy"].is_default and configs["retention.ms"].value == "3600000",
      f"alter_configs replaced the set: cleanup.policy {configs['cleanup.policy'].value}")
print("incremental_alter_configs and alter_configs ok")

cluster = admin.describe_cluster(request_timeout=WAIT_S).result(WAIT_S)
check(len(cluster.nodes) >= 1 and cluster.cluster_id, f"describe_cluster {cluster}")
print(f"describe_cluster ok: {len(cluster.nodes)} nodes, cluster id {cluster.cluster_id}")

producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "compression.type": "lz4"})
count = 400
for i in range(count):
    producer.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % 4)
check(producer.flush(WAIT_S) == 0, "every record delivered")
offsets = admin.list_offsets({TopicPartition(topic, p): OffsetSpec.latest() for p in range(4)},
                             request_timeout=WAIT_S)
latest = {tp.partition: f.result(WAIT_S).offset for tp, f in offsets.items()}
check(latest == {p: count // 4 for p in range(4)}, f"latest offsets {latest}")
print(f"list_offsets ok: {latest}")

members = [Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "session.timeout.ms": 10000}) for _ in range(2)]
for member in members:
    member.subscribe([topic])
seen = set()
deadline = time.time() + WAIT_S
while len(seen) < count and time.time() < deadline:
    for member in members:
        msg = member.poll(0.2)
        if msg is None:
            continue
        check(msg.error() is None, f"consume error {msg.error()}")
        seen.add(msg.value().decode())
        member.commit(msg, asynchronous=False)
check(len(seen) == count, f"the group consumed {len(seen)} of {count}")
assignments = [len(member.assignment()) for member in members]
print(f"consumer group ok: {count} records, assignments {assignments}")

groups = admin.list_consumer_groups(request_timeout=WAIT_S).result(WAIT_S)
check(group in {g.group_id for g in groups.valid}, f"list_consumer_groups {groups.valid}")
description = admin.describe_consumer_groups([group], request_timeout=WAIT_S)[group].result(WAIT_S)
check(len(description.members) == 2, f"describe_consumer_groups members {description.members}")
committed = admin.list_consumer_group_offsets(
    [__import__("confluent_kafka").ConsumerGroupTopicPartitions(group)], request_timeout=WAIT_S)[group].result(WAIT_S)
total = sum(tp.offset for tp in committed.topic_partitions)
check(total == count, f"committed offsets sum to {total}")
print(f"list/describe groups and committed offsets ok: {total}")
for member in members:
    member.close()

result(admin.delete_topics([topic], request_timeout=WAIT_S))
deadline = time.time() + WAIT_S
while topic in admin.list_topics(timeout=WAIT_S).topics and time.time() < deadline:
    time.sleep(0.2)
check(topic not in admin.list_topics(timeout=WAIT_S).topics, "the topic is gone")
print("delete_topics ok")
print("confluent-kafka admin ok")
