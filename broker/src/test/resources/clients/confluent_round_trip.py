"""Round trip through Cairn with confluent-kafka (librdkafka) for Python.

Usage: confluent_round_trip.py BOOTSTRAP TOPIC COUNT [KEY=VALUE;KEY=VALUE...]
The optional last argument adds librdkafka settings to both clients (security.protocol, sasl.*, ssl.*), and
cairn.oauth.token.file=PATH logs in with OAUTHBEARER using the JWT in PATH.
Produces COUNT keyed messages with acks=all and idempotence, then consumes the topic from the beginning
with a standalone consumer (assign, no group) and checks every message came back once, in order.
Exits 0 on success and prints one line describing what it checked.
"""
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = dict(setting.split("=", 1) for setting in sys.argv[4].split(";")) if len(sys.argv) > 4 else {}
# cairn.oauth.token.file=PATH: log in with SASL OAUTHBEARER using the JWT in PATH (librdkafka's oauth_cb).
token_file = extra.pop("cairn.oauth.token.file", None)
if token_file is not None:
    import base64
    import json

    def oauth_token(_config):
        token = open(token_file).read().strip()
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return token, float(claims["exp"])

    extra["oauth_cb"] = oauth_token

delivered = []
errors = []


def on_delivery(err, msg):
    if err is not None:
        errors.append(str(err))
    else:
        delivered.append((msg.partition(), msg.offset()))


producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                     "linger.ms": 5, **extra})
for i in range(count):
    producer.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=0,
                     on_delivery=on_delivery)
    producer.poll(0)
remaining = producer.flush(60)
if remaining or errors or len(delivered) != count:
    sys.exit(f"produce failed: {remaining} undelivered, {len(delivered)} delivered, errors {errors[:3]}")

consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "py-standalone",
                     "enable.auto.commit": False, "auto.offset.reset": "earliest", **extra})
consumer.assign([TopicPartition(topic, 0, 0)])
values = []
deadline = time.time() + 60
while len(values) < count and time.time() < deadline:
    msg = consumer.poll(0.5)
    if msg is None:
        continue
    if msg.error():
        sys.exit(f"consume error: {msg.error()}")
    values.append(msg.value().decode())
consumer.close()
expected = [f"v{i}" for i in range(count)]
if values != expected:
    sys.exit(f"consumed {len(values)} values; first mismatch at "
             f"{next((i for i, (a, b) in enumerate(zip(values, expected)) if a != b), len(values))}")
print(f"confluent-kafka round trip ok: {count} messages, offsets {delivered[0][1]}..{delivered[-1][1]}")
