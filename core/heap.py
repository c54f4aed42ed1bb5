"""The garbage collector of a long-running process (server, worker, relay, tick), set once
after boot.

CPython's cyclic collector runs a young-generation pass every 700 net allocations and, every
hundred of those, a full pass over every tracked object — including the hundreds of
thousands the boot leaves for good (modules, SQLAlchemy tables and compiled statements,
Litestar's handlers, the plugins). A tick firing timers or a worker finishing steps
allocates thousands of short-lived objects per instance, so those passes ran constantly: in
``bench/bench_tick.py`` the collector was about a fifth of the tick's Python time.

:func:`settle` collects once, then freezes what survived (``gc.freeze``: moved to a
permanent generation that no pass scans again; it is never freed, which is what the boot's
objects are for anyway) and makes the young generation larger, so a pass runs every
50,000 net allocations instead of 700. Reference counting still frees almost every object
at once; only cycles wait a little longer. One-shot commands do not call it.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000


def settle() -> None:
    """Freeze what the boot left and space out the collector's passes (call after boot)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
