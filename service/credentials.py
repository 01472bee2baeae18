"""Bearer tokens: random, shown once, and stored only as SHA-256 hashes; compared in
constant time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(24)


def derived_token(secret: str, purpose: str) -> str:
    """A token only the holder of ``secret`` can compute, one per ``purpose``:
    HMAC-SHA256 keyed by the secret, as long as a ``new_token``. The server can give it
    again whenever the holder shows ``secret``, so it never keeps it, only its hash."""
    digest = hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_secret(given: str, expected: str | None) -> bool:
    return expected is not None and hmac.compare_digest(given.encode(), expected.encode())
