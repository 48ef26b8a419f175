"""Secrets kept at rest: sealed with Fernet (`cryptography`), its key in the system keyring, or not kept.

The watch list keeps a pinned payout's weblink token (a secret, DESIGN rule 6) only so that
it can be polled after a restart: sealed here. Without a usable system keyring nothing is
sealed, and the caller keeps the secret in memory for this run only. A key that was lost
(a new keyring) leaves old seals unreadable: they read as not kept, never as an error.
No Textual.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

log = logging.getLogger("giftdesk.sealed")

KEYRING_SERVICE = "giftdesk"
KEYRING_KEY_NAME = "local-seal-key"  # one key for what this machine's files keep sealed


def digest(secret: str) -> str:
    """A stand-in for `secret` to find a row by: the secret cannot be read back from it."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


class Sealer:
    """Seals and opens secrets with the key kept in the system keyring (made on first use)."""

    def __init__(self) -> None:
        self._fernet: Fernet | None = None
        self._asked = False  # the keyring is asked once per run

    @property
    def available(self) -> bool:
        return self._key() is not None

    def seal(self, secret: str) -> str | None:
        """The sealed secret, or None when no keyring can hold the key (then it is not to be kept)."""
        fernet = self._key()
        return fernet.encrypt(secret.encode("utf-8")).decode("ascii") if fernet is not None else None

    def open(self, sealed: str | None) -> str | None:
        """The secret, or None: nothing sealed, no key, or a seal made with a key since lost."""
        fernet = self._key()
        if sealed is None or fernet is None:
            return None
        from cryptography.fernet import InvalidToken

        try:
            return fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, ValueError):
            return None

    def _key(self) -> Fernet | None:
        if not self._asked:
            self._asked = True
            self._fernet = _keyring_fernet()
        return self._fernet


def _keyring_fernet() -> Fernet | None:
    import keyring  # slow to import: only when something is to be sealed or opened
    from cryptography.fernet import Fernet

    try:
        key = keyring.get_password(KEYRING_SERVICE, KEYRING_KEY_NAME)
        if key is None:
            key = Fernet.generate_key().decode("ascii")
            keyring.set_password(KEYRING_SERVICE, KEYRING_KEY_NAME, key)
        return Fernet(key.encode("ascii"))
    except Exception as error:  # no backend, a locked or broken one: secrets are then not kept, and that is said
        log.warning(
            "no system keyring for the local seal key (%s): weblinks are kept for this run only", type(error).__name__
        )
        return None
