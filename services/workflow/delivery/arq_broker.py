"""Redis through arq: the production broker. One arq queue per worker queue.

The outbox row id is the arq job id, so a row published twice (a relay killed between publish
and mark) is one job: arq refuses a job id it already holds. A step re-sent by the sweeper has a
new outbox row, hence a new job — and the step run's lease makes sure only one worker runs it.

Workers do not spin on arq's poll: the relay announces the queues it filled on a Redis channel
(``wake_channel``) and each worker looks at its queue at once; the poll (``worker_poll_s``) is
only the fallback for a lost announcement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from arq.connections import ArqRedis, RedisSettings, create_pool
from arq.constants import expires_extra_ms, job_key_prefix, result_key_prefix
from arq.jobs import serialize_job
from arq.utils import timestamp_ms

from services.workflow.runtime.kernel.naming import STEP_TOPIC_PREFIX, SUBJECT_TOPIC
from services.workflow.runtime.ports import OutboxMessage

JOB = "tramita_deliver"

ENQUEUE_MANY = """
local added, filled = 0, {}
for i = 1, #KEYS, 3 do
  local job_key, result_key, queue = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  if redis.call('EXISTS', job_key, result_key) == 0 then
    redis.call('PSETEX', job_key, ARGV[1], ARGV[(i + 2) / 3 + 4])
    redis.call('ZADD', queue, ARGV[2], string.sub(job_key, string.len(ARGV[3]) + 1))
    filled[queue] = true
    added = added + 1
  end
end
for queue, _ in pairs(filled) do
  redis.call('PUBLISH', ARGV[4], queue)
end
return added
"""
"""arq's ``enqueue_job`` for a whole batch in one round trip — a job id arq already holds
(queued or finished) is skipped, exactly as ``enqueue_job`` skips it — then one announcement
per filled queue on the wake channel. KEYS: (job key, result key, queue) per message; ARGV:
expiry ms, score, arq's job key prefix, the wake channel, then the serialized jobs."""


def wake_channel(prefix: str) -> str:
    """Where the relay announces the arq queues it just filled (message: the queue's key)."""
    return f"{prefix}:wake"


def queue_of(message: OutboxMessage) -> str:
    if message.topic.startswith(STEP_TOPIC_PREFIX):
        return message.topic[len(STEP_TOPIC_PREFIX) :]
    if message.topic == SUBJECT_TOPIC:
        return "events"
    return "events"


def arq_queue(prefix: str, queue: str) -> str:
    return f"{prefix}:queue:{queue}"


def serialize(data: dict[str, Any]) -> bytes:
    return msgspec.msgpack.encode(data)


def deserialize(data: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = msgspec.msgpack.decode(data)
    return decoded


def _body(message: OutboxMessage) -> dict[str, Any]:
    return {
        "id": message.id,
        "topic": message.topic,
        "key": message.key,
        "payload": message.payload,
    }


async def connect(redis_url: str) -> ArqRedis:
    return await create_pool(
        RedisSettings.from_dsn(redis_url),
        job_serializer=serialize,
        job_deserializer=deserialize,
    )


class ArqBroker:
    def __init__(self, redis: ArqRedis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._enqueue_many = redis.register_script(ENQUEUE_MANY)

    async def publish_many(self, messages: Sequence[OutboxMessage]) -> None:
        """Publish a batch atomically in one round trip (same jobs as ``publish``)."""
        if not messages:
            return
        now = timestamp_ms()
        keys: list[str] = []
        jobs: list[bytes] = []
        for message in messages:
            job_id = f"{self._prefix}:outbox:{message.id}"
            keys += [
                job_key_prefix + job_id,
                result_key_prefix + job_id,
                arq_queue(self._prefix, queue_of(message)),
            ]
            jobs.append(serialize_job(JOB, (_body(message),), {}, None, now, serializer=serialize))
        await self._enqueue_many(
            keys=keys,
            args=[expires_extra_ms, now, job_key_prefix, wake_channel(self._prefix), *jobs],
        )

    async def publish(self, message: OutboxMessage) -> None:
        await self._redis.enqueue_job(
            JOB,
            _body(message),
            _job_id=f"{self._prefix}:outbox:{message.id}",
            _queue_name=arq_queue(self._prefix, queue_of(message)),
        )
        await self._redis.publish(
            wake_channel(self._prefix), arq_queue(self._prefix, queue_of(message))
        )

    async def close(self) -> None:
        await self._redis.aclose()
