"""The one redaction path of stored events, shared by every family.

Views, the event log, exports and the live stream all show an event through
``redact_event``: a hidden card (a hand, a card drawn from the stock, the deck, a
rebuilt stock's order) and the hand's seed leave only through ``Viewer.can_see``. Deal
events are shown through an allow-list, so a secret field a family adds can never slip out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.cards import deal, sort_cards
from domain.events import CARD_DRAWN, HAND_DEALT, Event
from domain.viewer import Viewer

PUBLIC_DEAL_FIELDS = ("hand_number", "dealer", "players", "hand_size", "commitment",
                      "prepared", "fixed")
"""What every family's deal shows to all; the ``deck`` and ``seed`` are never here."""


def redact_event(event: Event, viewer: Viewer, public_deal_fields: Sequence[str] = (),
                 secret_fields: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The payload of a stored event as ``viewer`` may see it.

    ``public_deal_fields`` are the family's own public fields of its deal (e.g. gem's
    dice); ``secret_fields`` maps an event type to a field nobody but the organiser sees
    (e.g. the order of a rebuilt stock).
    """
    data: Mapping[str, Any] = event.data
    if viewer.is_full:
        return dict(data)
    if event.type == HAND_DEALT.name:
        return _redact_deal(data, viewer, (*PUBLIC_DEAL_FIELDS, *public_deal_fields))
    secret = (secret_fields or {}).get(event.type)
    if secret is None and event.type == CARD_DRAWN.name and data["source"] == "stock" \
            and not viewer.can_see(data["seat"]):
        secret = "card"
    return {key: value for key, value in data.items() if key != secret}


def _redact_deal(data: Mapping[str, Any], viewer: Viewer,
                 public: Sequence[str]) -> dict[str, Any]:
    """The public fields, the upcard and stock size, and a seat its own cards."""
    out = {key: data[key] for key in public if key in data}
    players = data["players"]
    hands, pile, stock = deal(data["deck"], players, data["dealer"], data["hand_size"])
    out.update({"upcard": pile[0] if pile else None, "stock_count": len(stock)})
    if viewer.seat is not None and viewer.seat < players:
        out["hand"] = list(sort_cards(hands[viewer.seat]))
    return out
