"""Provably fair deals: per-hand seeds, their commitments, and the randomness drawn from them.

Every hand has its own secret 32-byte seed, derived from the match's secret seed and the
players' public entropy strings:

    hand_seed(n) = HMAC-SHA256(key=match_seed, msg="hand:" || n || (0x1f || entropy_i)...)

Its deal event publishes ``commitment = SHA-256(hand_seed)`` before any card is seen;
the hand seed is revealed (``SeedRevealed``) when the hand ends and the match seed
(``MatchSeedRevealed``) when the match ends. From the revealed hand seed alone anyone
recomputes the hand's randomness with ``domain.shuffle``:

    deck order      = shuffled(match deck, hand_seed, "deck")
    gem dice        = 1 + choose(6, hand_seed, "die:1"), 1 + choose(6, hand_seed, "die:2")
    stock rebuild k = shuffled(cards, hand_seed, "rebuild:<k>")
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from domain import events
from domain.events import MATCH_SEED_REVEALED, SEED_COMMITTED, SEED_REVEALED, Event, names
from domain.shuffle import choose, shuffled

if TYPE_CHECKING:
    from domain.variant import Variant

SEPARATOR = b"\x1f"

AUDIT_EVENTS = names(SEED_COMMITTED, SEED_REVEALED, MATCH_SEED_REVEALED)
"""Events about the deal's fairness, not the game: no family's ``evolve`` ever sees them."""
UNFOLDED_EVENTS = (AUDIT_EVENTS | {events.CLOCK_SET.name, events.BOTS_SEATED.name}
                   | names(*events.REMATCH_EVENTS))
"""Events no family's ``evolve`` ever sees: the fairness audit trail, the match's clock
settings (``domain.clocks``), its bot seats (``domain.bot_seats``) and its rematch
(``domain.rematch``), which the service and the verifier read beside the rules."""


def hand_seed(match_seed: bytes, hand_number: int, entropy: Sequence[str] = ()) -> bytes:
    """The secret seed of hand ``hand_number``; one-way, so revealing it hides later hands."""
    message = f"hand:{hand_number}".encode()
    for contribution in entropy:
        message += SEPARATOR + contribution.encode("utf-8", "surrogatepass")
    return hmac.new(match_seed, message, hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """What a deal event publishes about its seed: SHA-256, hex."""
    return hashlib.sha256(seed).hexdigest()


def shuffled_deck(cards: Sequence[str], seed: bytes) -> tuple[str, ...]:
    return shuffled(cards, seed, "deck")


def roll_dice(seed: bytes, count: int = 2) -> tuple[int, ...]:
    return tuple(1 + choose(6, seed, f"die:{die}") for die in range(1, count + 1))


def rebuilt_stock(cards: Sequence[str], seed: bytes, rebuild: int) -> tuple[str, ...]:
    """The ``rebuild``-th (1-based) new stock of a hand, shuffled from the old discards."""
    return shuffled(cards, seed, f"rebuild:{rebuild}")


@dataclass(frozen=True)
class Deal:
    """The randomness of one hand, decided outside the rules and recorded by its deal event.

    ``fixed`` carries organiser-fixed values for the hand (e.g. ``{"dice": [3, 4]}``);
    ``prepared`` says the organiser fixed the deck, so it was not shuffled from ``seed``.
    """

    deck: tuple[str, ...]
    seed: bytes
    prepared: bool = False
    fixed: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The fields every family's deal event carries (``deck`` and ``seed`` are secret)."""
        return {"deck": list(self.deck), "seed": self.seed.hex(),
                "commitment": commitment(self.seed), "prepared": self.prepared,
                "fixed": dict(self.fixed)}


@dataclass(frozen=True)
class MatchSecrets:
    """The match's secret seed and the players' public entropy: every hand seed's source."""

    seed: bytes
    entropy: tuple[str, ...] = ()

    def hand_seed(self, hand_number: int) -> bytes:
        return hand_seed(self.seed, hand_number, self.entropy)

    def committed(self) -> Event:
        """Published at creation: the match seed's commitment and the entropy mixed in."""
        return SEED_COMMITTED.event(seed_commitment=commitment(self.seed),
                                    entropy=list(self.entropy))

    def hand_revealed(self, hand_number: int) -> Event:
        """Published when hand ``hand_number`` ends: its seed, checkable against the deal."""
        return SEED_REVEALED.event(hand_number=hand_number,
                                   seed=self.hand_seed(hand_number).hex())

    revealed = hand_revealed
    """The older name, kept while the service still calls it."""

    def match_revealed(self) -> Event:
        """Published when the match ends: proves every hand seed came from it and the entropy."""
        return MATCH_SEED_REVEALED.event(seed=self.seed.hex())

    def deal(self, variant: Variant, options: Any, hand_number: int) -> Deal:
        """Hand ``hand_number``'s Deal: the match deck shuffled from its hand seed."""
        return variant.deal_for(options, self, hand_number)
