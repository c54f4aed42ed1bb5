"""The notification port's e-mail adapters: real SMTP, or a file sink when SMTP is not set.

Modules send citizen e-mails through ``Mailer.send``; they never build an SMTP session. The
SMTP adapter runs the stdlib ``smtplib`` in a worker thread so a slow mail server never blocks
the event loop. ``message_id`` is derived by the caller from the step's idempotency key, so even
a re-send after a crash between "sent" and "recorded" carries the same ``Message-ID`` and can be
deduplicated by the receiving side. Nothing here logs addresses or bodies (personal data).
"""

from __future__ import annotations

import asyncio
import re
import smtplib
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

import msgspec

from contracts.errors import RetryableFailure, ValidationRejected
from core.settings import Settings

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class MailMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One e-mail to one recipient; ``message_id`` is stable across re-sends."""

    to: str
    subject: str
    body: str
    message_id: str


class Mailer(Protocol):
    """The notification port: deliver one message or raise a ``HandlerFailure``."""

    async def send(self, message: MailMessage) -> None: ...


def message_id(key: str, domain: str = "tramita.local") -> str:
    """A ``Message-ID`` made from an idempotency key (only safe characters kept)."""
    return f"<{_UNSAFE.sub('-', key)}@{domain}>"


def _email(message: MailMessage, sender: str) -> EmailMessage:
    email = EmailMessage()
    email["From"] = sender
    email["To"] = message.to
    email["Subject"] = message.subject
    email["Message-ID"] = message.message_id
    email.set_content(message.body)
    return email


class SmtpMailer:
    """Real SMTP (no TLS/auth yet: a relay on the private network, or a local MTA)."""

    def __init__(self, host: str, port: int, sender: str, *, timeout_s: float = 10.0) -> None:
        self.host = host
        self.port = port
        self.sender = sender
        self.timeout_s = timeout_s

    async def send(self, message: MailMessage) -> None:
        await asyncio.to_thread(self._send, _email(message, self.sender))

    def _send(self, email: EmailMessage) -> None:
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout_s) as smtp:
                smtp.send_message(email)
        except smtplib.SMTPRecipientsRefused as exc:
            # The address is refused for good: a person must look at it, retrying won't help.
            raise ValidationRejected("the mail server refused the recipient") from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise RetryableFailure(
                "the mail server is unavailable", error_type=type(exc).__name__
            ) from exc


class FileMailer:
    """Writes each message as ``<message-id>.eml`` in a folder (development without SMTP).

    Writing the same message twice overwrites one file, so re-sends stay visible as one mail.
    """

    def __init__(self, folder: Path, sender: str) -> None:
        self.folder = folder
        self.sender = sender

    async def send(self, message: MailMessage) -> None:
        await asyncio.to_thread(self._write, message)

    def _write(self, message: MailMessage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = _UNSAFE.sub("-", message.message_id.strip("<>")) + ".eml"
        (self.folder / name).write_bytes(bytes(_email(message, self.sender)))


DEFAULT_MAIL_FOLDER = Path("tramita-mail")


def mailer_from_settings(settings: Settings) -> Mailer:
    """SMTP when ``TRAMITA_SMTP_HOST`` is set, else the file sink in ``./tramita-mail``."""
    if settings.smtp_host:
        return SmtpMailer(settings.smtp_host, settings.smtp_port, settings.smtp_from)
    return FileMailer(DEFAULT_MAIL_FOLDER, settings.smtp_from)
