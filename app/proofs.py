"""Sealed-order proofs: the room sees a commitment when an order is sealed and can check it
against the order and its salt once they are revealed.

``commitment = sha256(canonical_json(order) + salt)``, where canonical JSON has sorted keys,
no spaces and UTF-8 text, and the salt is 32 hex digits (128 random bits) drawn per order.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def commitment(order: Mapping[str, Any], salt: str) -> str:
    return hashlib.sha256((canonical_json(order) + salt).encode()).hexdigest()


def seal(order: Mapping[str, Any]) -> tuple[str, str]:
    """A fresh salt for ``order`` and the commitment to show the room."""
    salt = secrets.token_hex(16)
    return salt, commitment(order, salt)


def verifies(order: Mapping[str, Any], salt: str, expected: str) -> bool:
    return hmac.compare_digest(commitment(order, salt), expected)
