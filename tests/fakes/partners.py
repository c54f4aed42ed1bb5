"""Two partner systems as real HTTP servers on loopback, with faults a test can plan.

* ``Erp`` honours ``Idempotency-Key``: a repeated key returns the order it already created.
* ``Gateway`` has no idempotency: every POST creates a message; ``GET /messages?reference=``
  finds what exists (what reconciliation needs).

Faults are planned per process reference and consumed one per POST: ``503``, ``422``, ``slow``
(the effect happens, the answer comes after the client's timeout), ``lost`` (the effect happens,
the answer is a 503), ``delay`` (a slow but
timely answer) and ``hang`` (the effect
happens, then the answer waits until released, so the test can kill the worker meanwhile).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from abc import ABC, abstractmethod
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

SLOW_S = 1.5
DELAY_S = 2.0


class Partner(ABC):
    kind = "partner"
    fault_field = "reference"
    """The request body's field that faults are planned by."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.faults: dict[str, list[str]] = defaultdict(list)
        self.effects: dict[str, list[dict[str, Any]]] = defaultdict(list)  # per reference
        self.requests = 0
        self.hanging = threading.Event()
        self.release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Partner:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def plan(self, reference: str, *faults: str) -> None:
        with self.lock:
            self.faults[reference].extend(faults)

    def count(self, reference: str) -> int:
        with self.lock:
            return len(self.effects[reference])

    def _next_fault(self, reference: str) -> str | None:
        with self.lock:
            self.requests += 1
            queue = self.faults.get(reference)
            return queue.pop(0) if queue else None

    @abstractmethod
    def create(self, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        """Make the partner's effect (an order, a message) and return it."""

    def find(self, reference: str) -> dict[str, Any] | None:
        with self.lock:
            found = self.effects.get(reference)
            return found[0] if found else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        partner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def do_GET(self) -> None:
                query = parse_qs(urlparse(self.path).query)
                found = partner.find(query.get("reference", [""])[0])
                if found is None:
                    self._send(404, {"error": "not found"})
                else:
                    self._send(200, found)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                if "reference" not in body:  # a client killed mid-request sends half a body
                    self._send(400, {"error": "incomplete request"})
                    return
                fault = partner._next_fault(str(body.get(partner.fault_field, "")))
                if fault == "503":
                    self._send(503, {"error": "unavailable"})
                    return
                if fault == "422":
                    self._send(422, {"error": "invalid"})
                    return
                effect = partner.create(body, self.headers.get("Idempotency-Key"))
                if fault == "lost":
                    self._send(503, {"error": "unavailable"})
                    return
                if fault == "slow":
                    time.sleep(SLOW_S)
                if fault == "delay":
                    time.sleep(DELAY_S)
                if fault == "hang":
                    partner.hanging.set()
                    partner.release.wait(timeout=60)
                self._send(201, effect)

        return Handler


class Erp(Partner):
    kind = "erp"

    def __init__(self) -> None:
        super().__init__()
        self.by_key: dict[str, dict[str, Any]] = {}

    def create(self, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        with self.lock:
            if key and key in self.by_key:
                return self.by_key[key]
            order = {"order_id": f"ORD-{sum(map(len, self.effects.values())) + 1}"}
            self.effects[body["reference"]].append(order)
            if key:
                self.by_key[key] = order
            return order


class Gateway(Partner):
    kind = "gateway"

    def create(self, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        with self.lock:
            message = {"message_id": f"MSG-{sum(map(len, self.effects.values())) + 1}"}
            self.effects[body["reference"]].append(message)
            return message


class TaxSystem(Partner):
    """A municipal tax system without idempotency: every POST issues a fee slip; a slip is found
    by the ``reference`` the client sent. Faults are planned per licence (``subject``)."""

    kind = "tax"
    fault_field = "subject"

    def create(self, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        with self.lock:
            slip = {"number": f"DAM-{sum(map(len, self.effects.values())) + 1:04d}"}
            self.effects[body["reference"]].append({**slip, "subject": body["subject"]})
            return slip

    def slips(self) -> list[dict[str, Any]]:
        with self.lock:
            return [slip for made in self.effects.values() for slip in made]
