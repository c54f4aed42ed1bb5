"""The security headers of every HTML page the service serves (admin pages, portal, /public).

Kept apart from ``ui`` and ``public`` so that both use the same policy without importing each
other's routers.
"""

from __future__ import annotations

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
"""No script at all (the pages work without it) and no inline style: a stylesheet of our own."""

SCRIPT_CSP = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "
    "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""For a page that enhances itself with a bundled script of our own (the version page's
diagram): external same-origin script and same-origin fetch, still no inline script or style."""

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
