"""An operator's own signing key (Ed25519, `cryptography`) for the team's audit entries (DESIGN rule 13).

The private key lives in the system keyring of the operator's machine, one per
database login (made on first use, as tui.local.sealed's seal key is); its public
key is registered for the login in the team database (`operator_keys`), so
`giftdesk audit verify` can tell who signed each entry, and a rewrite by anyone
without that key, the tables' owner included, shows. No Textual.
"""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from tui.local.sealed import KEYRING_SERVICE


class NoSigningKey(OSError):
    """No keyring can hold this operator's signing key: a team audit entry cannot be signed, so it is not written."""


def keyring_name(login: str) -> str:
    return f"team-signing-key:{login}"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


class Signer:
    """Signs as one database login, with the key kept in this machine's keyring for it."""

    def __init__(self, login: str, *, throwaway: bool = False) -> None:
        """`throwaway` (the demo's database, gone when it ends): without a keyring, a key for this run only."""
        self.login = login
        self.throwaway = throwaway
        self._key: Ed25519PrivateKey | None = None

    def _private(self) -> Ed25519PrivateKey:
        if self._key is None:
            import keyring  # slow to import: only when an entry is signed

            try:
                kept = keyring.get_password(KEYRING_SERVICE, keyring_name(self.login))
                if kept is None:
                    key = Ed25519PrivateKey.generate()
                    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
                    keyring.set_password(KEYRING_SERVICE, keyring_name(self.login), _b64(raw))
                else:
                    key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(kept))
            except Exception as error:  # no backend, a locked or broken one, a damaged key: said, never guessed
                if self.throwaway:
                    self._key = Ed25519PrivateKey.generate()
                    return self._key
                raise NoSigningKey(
                    f"no signing key for {self.login} ({type(error).__name__}): team audit entries are signed with a "
                    "key kept in the system keyring; set up a keyring (see docs/team.md) and try again"
                ) from None
            self._key = key
        return self._key

    @property
    def public_key(self) -> str:
        """The public key, base64 of its 32 bytes: what `giftdesk team operator add --public-key` registers."""
        return _b64(self._private().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def sign(self, message: str) -> str:
        return _b64(self._private().sign(message.encode("utf-8")))


def signed_by(public_key: str, message: str, signature: str) -> bool:
    """Whether `signature` is `public_key`'s over `message`; a damaged key or signature is simply not."""
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(base64.b64decode(signature, validate=True), message.encode("utf-8"))
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True
