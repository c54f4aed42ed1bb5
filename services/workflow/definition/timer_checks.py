"""Checks of durations, deadline references and boundary timers, one node at a time."""

from __future__ import annotations

from typing import Final

from .checks import Collector
from .durations import DurationError, parse_duration
from .messages import N_
from .model import (
    BoundaryTimer,
    DeadlineRef,
)
from .ports import KnownNames

_DURATION_PROBLEMS: Final = {
    "calendar_units": N_(
        "Node `%(node)s`: the duration %(text)s uses years or months, which have no fixed "
        "length; use days (P30D) or business_days instead."
    ),
    "not_iso": N_(
        "Node `%(node)s`: %(text)s is not an ISO 8601 duration such as PT48H, P2D or P1DT12H."
    ),
    "not_positive": N_("Node `%(node)s`: the duration %(text)s must be longer than zero."),
    "too_long": N_("Node `%(node)s`: the duration %(text)s is longer than ten years."),
}


def check_duration(out: Collector, i: int, nid: str, suffix: str, text: str) -> None:
    try:
        parse_duration(text)
    except DurationError as exc:
        template = _DURATION_PROBLEMS.get(exc.reason, exc.template)
        out.at(i, nid, suffix, "invalid_duration", template, **exc.params)


def check_deadline(
    out: Collector, i: int, nid: str, where: str, ref: DeadlineRef, known: KnownNames
) -> None:
    if ref.rule not in known.deadline_rules:
        out.at(
            i,
            nid,
            f"{where}.rule",
            "unknown_deadline_rule",
            N_("Node `%(node)s` names the deadline rule `%(rule)s`, which is not registered."),
            rule=ref.rule,
        )
    elif ref.extension and ref.rule not in known.extendable_rules:
        out.at(
            i,
            nid,
            f"{where}.extension",
            "rule_not_extendable",
            N_("Node `%(node)s` extends the deadline rule `%(rule)s`, which allows no extension."),
            rule=ref.rule,
        )


def check_timer(
    out: Collector, i: int, nid: str, k: int, timer: BoundaryTimer, known: KnownNames
) -> None:
    where = f"timers[{k}]"
    given = [f for f in ("duration", "business_days", "deadline") if getattr(timer, f)]
    if len(given) != 1:
        out.at(
            i,
            nid,
            where,
            "timer_spec",
            N_(
                "Timer `%(timer)s` on node `%(node)s` needs exactly one of `duration`, "
                "`business_days` or `deadline`."
            ),
            timer=timer.id,
        )
    elif timer.duration is not None:
        check_duration(out, i, nid, f"{where}.duration", timer.duration)
    elif timer.deadline is not None:
        check_deadline(out, i, nid, f"{where}.deadline", timer.deadline, known)
    if timer.interrupting:
        if timer.next is None or timer.escalate_to is not None:
            out.at(
                i,
                nid,
                where,
                "timer_target",
                N_(
                    "Timer `%(timer)s` on node `%(node)s` is interrupting, so it needs `next` "
                    "(where the token goes) and cannot escalate."
                ),
                timer=timer.id,
            )
    elif (timer.next is None) == (timer.escalate_to is None):
        out.at(
            i,
            nid,
            where,
            "timer_target",
            N_(
                "Timer `%(timer)s` on node `%(node)s` is non-interrupting, so it needs exactly "
                "one of `next` (start a side path) or `escalate_to` (move the task)."
            ),
            timer=timer.id,
        )
    if timer.escalate_to is not None and timer.escalate_to not in known.queues:
        out.at(
            i,
            nid,
            f"{where}.escalate_to",
            "unknown_queue",
            N_(
                "Timer `%(timer)s` on node `%(node)s` escalates to queue `%(queue)s`, "
                "which is not registered."
            ),
            timer=timer.id,
            queue=timer.escalate_to,
        )
