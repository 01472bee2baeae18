"""How a stream opened with an organiser key ends when the key is revoked, as a seat's
stream ends when its token is rotated (``service.usecases.live``, ``SeatHolder``).

A match stream opened with the key (the full view, by header or by ticket) and the key's
lifecycle feed hold the key's hash (``KeyHolder``). The revocation drops the hash from the
key registry and, in the same step, announces it on the organiser's own revocations key
(``Organisers.revocations_key``), which each of those streams follows beside its own key
with the one gap-free follower. The stream hub reads the followed keys of a read before
their companions, so the announcement reaches a stream no later than anything appended
after the revocation; and the key is looked up once more after the second read, for a
revocation that came before the subscription. Nothing appended after the revocation
reaches the revoked key.

The admin token is configuration, not a key: nothing revokes it, so its streams hold
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.ports import Organisers
from service.usecases.following import Take

KEY_REVOKED = "key_revoked"
"""Why a stream opened with an organiser key ends: the admin revoked the key."""


@dataclass(frozen=True)
class KeyHolder:
    """Who a stream was opened for with an organiser key: the organiser, the hash of its
    key (or of the ticket's key), and the registry that knows whether it still stands."""

    organiser: str
    key_hash: str
    registry: Organisers

    def watched(self) -> dict[str, str]:
        """The key the revocation is announced on, from its newest entry: what the stream
        follows beside its own."""
        return {self.registry.revocations_key(self.organiser):
                self.registry.last_revocation(self.organiser)}

    def stands(self) -> bool:
        """Whether the key is still the organiser's (asked after the second read: a
        revocation announced before the stream subscribed is not delivered to it)."""
        return self.registry.lookup_hash(self.key_hash) == self.organiser

    def revoked_in(self, companions: Take) -> bool:
        """Whether one take's companion entries announce the key revoked. A take is
        checked whole before any of its entries is sent."""
        announced = self.registry.revocations_key(self.organiser)
        return any(self.registry.revoked_hash(fields) == self.key_hash
                   for key, entries in companions if key == announced
                   for _, fields in entries)
