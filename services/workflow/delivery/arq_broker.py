"""Redis through arq: the production broker. One arq queue per worker queue.

The outbox row id is the arq job id, so a row published twice (a relay killed between publish
and mark) is one job: arq refuses a job id it already holds. A step re-sent by the sweeper has a
new outbox row, hence a new job — and the step run's lease makes sure only one worker runs it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from arq.connections import ArqRedis, RedisSettings, create_pool

from services.workflow.runtime.naming import STEP_TOPIC_PREFIX, SUBJECT_TOPIC
from services.workflow.runtime.ports import OutboxMessage

JOB = "tramita_deliver"


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

    async def publish(self, message: OutboxMessage) -> None:
        await self._redis.enqueue_job(
            JOB,
            {
                "id": message.id,
                "topic": message.topic,
                "key": message.key,
                "payload": message.payload,
            },
            _job_id=f"{self._prefix}:outbox:{message.id}",
            _queue_name=arq_queue(self._prefix, queue_of(message)),
        )

    async def close(self) -> None:
        await self._redis.aclose()
