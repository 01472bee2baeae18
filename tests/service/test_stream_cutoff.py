"""Rotating a seat's token cuts its holder off at once: the tickets it was issued stop
working and the streams it opened end with ``event: end`` (issue 16, finding 2); the end
of a match ends its tickets and streams too.

In-process on both backends here; across two real API processes (real mode) in
``tests/service/test_stream_cutoff_processes.py``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_matches_api import act, to_knock
from tests.service.test_stream_tickets import ticket


def rotate(client, match: dict[str, Any], seat: int) -> str:
    answer = client.post(f"/v1/matches/{match['id']}/seats/{seat}/token",
                         headers=bearer(match["creator_token"]))
    assert answer.status_code == 200, answer.json
    return answer.json["token"]


class SseReader:
    """One streamed response read on its own thread: events by name, as they come."""

    def __init__(self, response: Any) -> None:
        assert response.status_code == 200, response.get_data(as_text=True)
        self.response, self.items, self.closed = response, [], False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for chunk in self.response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
            if "event" in fields:
                self.items.append((fields["event"], json.loads(fields["data"])))
        self.closed = True

    def names(self) -> list[str]:
        return [name for name, _ in self.items]

    def wait_closed(self, seconds: float) -> None:
        self.thread.join(seconds)
        assert self.closed, self.names()


def test_a_ticket_issued_before_a_rotation_lets_nobody_in(client):
    match = to_knock(client)
    old = bearer(match["seats"][1]["token"])
    issued = ticket(client, match, old)
    rotate(client, match, 1)
    answer = client.get(f"/v1/matches/{match['id']}/stream?ticket={issued}")
    assert (answer.status_code, answer.json["code"]) == (401, "invalid_ticket")
    assert "replaced" in answer.json["message"]
    assert client.post(f"/v1/matches/{match['id']}/stream-tickets",
                       headers=old).status_code == 401


def test_a_rotation_ends_the_old_tokens_streams_and_nothing_after_it_reaches_them(client):
    match = to_knock(client)  # Bob (seat 1) has drawn; he knocks next
    url = f"/v1/matches/{match['id']}/stream?after={match['version'] + 3}"
    old = bearer(match["seats"][1]["token"])
    by_header = SseReader(client.get(url, headers=old))
    by_ticket = SseReader(client.get(f"{url}&ticket={ticket(client, match, old)}"))
    ann = SseReader(client.get(url, headers=bearer(match["seats"][0]["token"])))
    time.sleep(0.3)
    started = time.monotonic()
    new = rotate(client, match, 1)
    for reader in (by_header, by_ticket):
        reader.wait_closed(2)
        assert reader.items[-1] == ("end", {"reason": "token_rotated"})
    assert time.monotonic() - started < 2
    assert act(client, {**match, "seats": [match["seats"][0], {"token": new}]}, 1,
               {"type": "knock", "discard": "5S"}).status_code == 200
    time.sleep(0.3)
    for reader in (by_header, by_ticket):
        assert "HandKnocked" not in reader.names()
    assert "HandKnocked" in ann.names() and not ann.closed  # another seat's stream goes on
    forfeited = client.post(f"/v1/matches/{match['id']}/forfeit", headers=ADMIN_AUTH,
                            json={"seat": 0, "reason": "left"})
    assert forfeited.status_code == 200, forfeited.json
    ann.wait_closed(2)  # a forfeit ends the match: every stream ends after its last event
    assert ann.names()[-2:] == ["SeatForfeited", "end"]
    assert ann.items[-1][1] == {"reason": "match_over"}
