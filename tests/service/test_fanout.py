"""The per-process stream hub (service/adapters/fanout.py) and the live streams built on it
(service/usecases/live.py, MatchStreams._follow): one reader per process, every event to
every subscriber exactly once and in order, redacted for each, and presence beside it."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from service.adapters.presence import Presence
from service.adapters.store import NewEvent
from service.bootstrap import bootstrap
from service.config import Settings
from service.usecases.live import LiveStreams, SeatHolder
from tests.service.conftest import ADMIN
from tests.service.test_controls_api import wait_for
from tests.service.test_matches_api import DECK


def new_match(wiring) -> dict[str, Any]:
    return wiring.creation.create({"variant": "gin", "players": [{"name": "Ann"},
                                                                 {"name": "Bob"}],
                                  "options": {"first_dealer": 0}, "deck": DECK}, ADMIN)


class Follower:
    """One live stream consumed on its own thread, as a server would serve it."""

    def __init__(self, items: Any) -> None:
        self.items = items
        self.received: list[dict[str, Any]] = []
        self.presence: list[dict[str, Any]] = []
        self.ended: dict[str, Any] | None = None
        self.done = False
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for item in self.items:
                if item is not None and "presence" in item:
                    self.presence.append(item["presence"])
                elif item is not None and "end" in item:
                    self.ended = item["end"]
                elif item is not None:
                    self.received.append(item)
                if self._stop.is_set():
                    break
            else:
                self.done = True
        finally:
            self.items.close()

    @property
    def versions(self) -> list[int]:
        return [event["version"] for event in self.received]

    def stop(self) -> None:
        self.ask_to_stop()
        self.thread.join(5)
        assert not self.thread.is_alive()

    def ask_to_stop(self) -> None:
        """The stream ends at its next item (a keep-alive tick at the latest)."""
        self._stop.set()


def stop_all(followers: list[Follower]) -> None:
    """Every stream asked to stop before any is waited for: each ends at its own next
    keep-alive tick, all of them within one tick."""
    for follower in followers:
        follower.ask_to_stop()
    for follower in followers:
        follower.stop()

def seat_holder(seat: int) -> SeatHolder:
    """A seat's stream whose token is never rotated."""
    return SeatHolder(seat, "a-token-hash", lambda: True)


def test_two_hundred_subscribers_each_get_every_event_once_in_order_redacted_for_them(wiring):
    matches = wiring
    match = new_match(wiring)
    match_id, tokens = match["id"], [seat["token"] for seat in match["seats"]]
    start = match["version"]
    viewers = [tokens[1]] * 100 + [tokens[0]] * 50 + [None] * 50
    followers = [Follower(matches.streams.follow(match_id, token, 0 if n % 10 == 0 else start, 100))
                 for n, token in enumerate(viewers)]
    hub = matches.streams.live.hub
    wait_for(lambda: hub.subscribers(wiring.store.events_key(match_id)) == 200)
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})]:
        version = matches.play.act(match_id, tokens[seat], action)["version"]
        wait_for(lambda v=version: all(f.versions and f.versions[-1] >= v for f in followers))
    for n, follower in enumerate(followers):
        first = 1 if n % 10 == 0 else start + 1
        assert follower.versions == list(range(first, 7)), n
        drawn = follower.received[-1]
        assert drawn["type"] == "CardDrawn"
        assert (drawn["data"].get("card") == "AH") is (viewers[n] == tokens[1]), n
    stop_all(followers)
    assert hub.watched() == set()


def test_the_switch_from_backlog_to_hub_neither_loses_nor_repeats(redis_client, key_prefix,
                                                                  monkeypatch):
    wiring = bootstrap(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                       redis_client, in_process=True)
    store, live = wiring.store, wiring.streams.live
    store.create("m1", [NewEvent("E", {"n": n}) for n in range(1, 4)], {})
    other = live.follow("m1", 3, 100)  # the hub already watches m1, from version 3
    assert next(other) is None
    real_read, calls = store.read, []

    def racing_read(match_id: str, after: int = 0, until: int | None = None) -> list:
        found = real_read(match_id, after, until)
        calls.append(after)
        if len(calls) == 1:  # appended between the backlog read and the subscription
            store.append("m1", 3, [NewEvent("E", {"n": 4})])
        return found

    monkeypatch.setattr(store, "read", racing_read)
    items = live.follow("m1", 1, 100)
    got: list[int] = []
    for _ in range(4):
        item = next(items)
        if isinstance(item, list):
            got += [event.version for event in item]
        if got and got[-1] == 4:
            store.append("m1", 4, [NewEvent("E", {"n": 5})])
        if got and got[-1] == 5:
            break
    assert got == [2, 3, 4, 5]
    assert next(items) is None  # and nothing more: version 4 and 5 came once
    items.close()
    other.close()
    assert live.hub.watched() == set()
    wiring.close()


def test_the_stream_ends_after_the_terminal_event_and_the_match_is_unwatched(wiring):
    match = new_match(wiring)
    follower = Follower(wiring.streams.follow(match["id"], None, match["version"], 100))
    hub = wiring.streams.live.hub
    wait_for(lambda: hub.watched())
    wiring.play.abort(match["id"], ADMIN, {"reason": "test"})
    follower.thread.join(5)
    assert follower.done and follower.received[-1]["type"] == "MatchAborted"
    assert follower.ended == {"reason": "match_over"}
    assert hub.watched() == set()
    wait_for(lambda: not hub.running)


def test_presence_reaches_streams_and_views_but_never_the_log(wiring):
    matches = wiring
    match = new_match(wiring)
    match_id, tokens = match["id"], [seat["token"] for seat in match["seats"]]
    public = Follower(matches.streams.follow(match_id, None, match["version"], 100))
    wait_for(lambda: matches.streams.live.hub.watched())
    seats = lambda: [s["presence"] for s in matches.queries.view(match_id, None)["seats"]]  # noqa: E731
    assert seats() == [{"online": False, "last_action_at": None}] * 2
    bob = Follower(matches.streams.follow(match_id, tokens[1], match["version"], 100))
    wait_for(lambda: public.presence == [{"seat": 1, "online": True}])
    assert [s["online"] for s in seats()] == [False, True]
    acted = matches.play.act(match_id, tokens[1], {"type": "pass"})
    stamp = wiring.store.read(match_id, acted["version"] - 1)[0].ts
    assert seats()[1]["last_action_at"] == stamp and seats()[0]["last_action_at"] is None
    bob.stop()
    wait_for(lambda: public.presence[-1] == {"seat": 1, "online": False})
    assert [s["online"] for s in seats()] == [False, False]
    assert [e.type for e in wiring.store.read(match_id)].count("presence") == 0
    assert wiring.repository.get(match_id).version == acted["version"]
    assert all("presence" not in e for e in public.received)
    public.stop()


def test_presence_expires_unless_refreshed(redis_client, key_prefix):
    wiring = bootstrap(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                       redis_client, in_process=True)
    presence = Presence(redis_client, wiring.store.key, ttl_ms=1500)
    live = LiveStreams(wiring.store, presence, wiring.streams.live.hub)
    presence.open("m1", "0:dead")  # a process that then crashed: nobody refreshes it
    held = live.follow("m1", 0, 50, seat_holder(1))
    next(held)  # seat 1's stream, kept alive by this process
    assert [s["online"] for s in presence.of("m1", 2)] == [True, True]
    time.sleep(1.6)
    live.refresh()
    assert [s["online"] for s in presence.of("m1", 2)] == [False, True]
    held.close()
    assert [s["online"] for s in presence.of("m1", 2)] == [False, False]
    assert live.held() == {}
    wiring.close()


def test_the_organiser_feed_rides_the_same_hub(wiring):
    from service.usecases.lifecycle import follow_feed

    hub, feeds = wiring.streams.live.hub, wiring.streams.feed
    feed = follow_feed(hub, feeds, "admin", "0-0", [], [], 100)
    assert next(feed) is None  # caught up (nothing yet), now on the hub
    assert hub.watched() >= {feeds.key("admin")}
    match = new_match(wiring)
    wiring.play.abort(match["id"], ADMIN, {"reason": "test"})
    item = next(item for item in feed if item is not None)
    assert item[1]["kind"] == "match_aborted" and item[1]["match_id"] == match["id"]
    feed.close()
    assert feeds.key("admin") not in hub.watched()


def test_a_stream_that_fails_to_open_holds_no_presence(redis_client, key_prefix, monkeypatch):
    import redis

    wiring = bootstrap(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                       redis_client, in_process=True)
    live = wiring.streams.live

    def down(match_id: str) -> str:
        raise redis.ConnectionError("gone")

    monkeypatch.setattr(live.presence, "last_live_id", down)
    with pytest.raises(redis.ConnectionError):
        next(live.follow("m1", 0, 50, seat_holder(0)))
    assert live.held() == {} and live.hub.watched() == set()
    assert [s["online"] for s in live.presence.of("m1", 1)] == [False]
    wiring.close()


class Announcements:
    """What the hubs hear: the sharded pub/sub channels of the given stream keys."""

    def __init__(self, client: Any, *keys: str) -> None:
        self.pubsub = client.pubsub()
        self.pubsub.ssubscribe(*keys)
        self.heard: list[str] = []
        self.take()

    def take(self) -> list[str]:
        while (message := self.pubsub.get_sharded_message(timeout=0.2)) is not None:
            if message["type"] == "smessage":
                channel = message["channel"]
                self.heard.append(channel.decode() if isinstance(channel, bytes) else channel)
        return self.heard

    def close(self) -> None:
        self.pubsub.close()


def test_every_writer_of_a_followed_key_announces_it_on_the_keys_channel(wiring):
    """The hub reads a key only when its channel says so: a writer that forgot to announce
    would leave every stream of that key silent. The writers: the first events (a claim
    that fills the last open seat), a seat's action, presence, the organiser feed."""
    store, matches = wiring.store, wiring
    feed_key = matches.streams.feed.key("admin")
    waiting = matches.creation.create({"variant": "gin",
                                       "players": [{"name": "Ann"}, {"open": True}],
                                       "options": {"first_dealer": 0}, "deck": DECK}, ADMIN)
    match_id = waiting["id"]
    live_key = matches.streams.live.presence.live_key(match_id)
    events_key = store.events_key(match_id)
    heard = Announcements(store.client, events_key, live_key, feed_key)
    try:
        bob = matches.seats.claim(match_id, 1, {"name": "Bob"})["token"]
        assert heard.take() == [events_key]
        matches.play.act(match_id, bob, {"type": "pass"})
        assert heard.take() == [events_key] * 2
        stream = matches.streams.follow(match_id, bob, wiring.repository.get(match_id).version, 100)
        next(stream)
        assert heard.take()[-1] == live_key  # seat 1 came online
        matches.play.abort(match_id, ADMIN, {"reason": "test"})
        assert set(heard.take()[3:]) == {events_key, feed_key}
        stream.close()
    finally:
        heard.close()


def test_the_hub_reads_what_was_appended_while_its_connection_was_lost(wiring, monkeypatch):
    """No message can arrive while the hub's pub/sub connection is down; when it is made
    again every watched key is subscribed again and read from the hub's position."""
    import redis

    matches = wiring
    match = new_match(wiring)
    match_id, tokens = match["id"], [seat["token"] for seat in match["seats"]]
    follower = Follower(matches.streams.follow(match_id, None, match["version"], 100))
    wait_for(lambda: matches.streams.live.hub.watched())
    lost: list[int] = []
    listen = redis.client.PubSub.get_sharded_message

    def drops_once(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not lost:  # appended now, then the connection is lost: no message for it
            lost.append(matches.play.act(match_id, tokens[1], {"type": "pass"})["version"])
            raise redis.ConnectionError("connection lost")
        return listen(self, *args, **kwargs)

    monkeypatch.setattr(redis.client.PubSub, "get_sharded_message", drops_once)
    wait_for(lambda: lost and follower.versions == lost)
    version = matches.play.act(match_id, tokens[0], {"type": "pass"})["version"]
    wait_for(lambda: follower.versions == [*lost, version])
    follower.stop()


def test_an_idle_subscriber_is_nudged_for_its_keep_alive_and_a_busy_one_is_not(wiring):
    """The hub wakes a subscriber empty-handed after ``idle_s`` without anything (its
    stream then sends a keep-alive); one that keeps getting entries is never nudged."""
    store, hub = wiring.store, wiring.streams.live.hub
    store.create("busy", [NewEvent("E", {"n": 0})], {})
    idle = hub.subscribe({store.events_key("quiet"): "0-0"}, idle_s=0.3)
    began = time.monotonic()
    assert idle.get() == []
    assert 0.25 <= time.monotonic() - began < 2.0
    busy = hub.subscribe({store.events_key("busy"): "1-0"}, idle_s=0.3)
    began = time.monotonic()
    for version in range(1, 8):
        store.append("busy", version, [NewEvent("E", {"n": version})])
        got = busy.get()
        assert got and got[-1][1][-1][0] == f"{version + 1}-0"
        time.sleep(0.1)
    assert time.monotonic() - began > 0.7  # longer than idle_s, and never an empty get
    assert idle.get() == []  # the idle one, meanwhile, again
    hub.unsubscribe(busy)
    hub.unsubscribe(idle)
    assert hub.watched() == set()


def test_a_slow_stream_of_a_match_still_gets_everything_its_fast_neighbours_got(wiring):
    """Streams of one match share one log in the hub; what a slow one has not taken yet
    stays in it however far the others have gone."""
    store, hub = wiring.store, wiring.streams.live.hub
    store.create("m", [NewEvent("E", {"n": 0})], {})
    fast = hub.subscribe({store.events_key("m"): "1-0"}, idle_s=30)
    slow = hub.subscribe({store.events_key("m"): "1-0"}, idle_s=30)
    fast_got: list[str] = []
    for version in range(1, 151):
        store.append("m", version, [NewEvent("E", {"n": version})])
        while not fast_got or fast_got[-1] != f"{version + 1}-0":
            fast_got += [entry_id for _, entries in fast.get() for entry_id, _ in entries]
    slow_got = [entry_id for _, entries in slow.get() for entry_id, _ in entries]
    assert slow_got == fast_got == [f"{v}-0" for v in range(2, 152)]
    hub.unsubscribe(fast)
    hub.unsubscribe(slow)
    assert hub.watched() == set()


def test_a_stream_ends_when_its_processs_hub_closes(redis_client, key_prefix):
    wiring = bootstrap(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                       redis_client, in_process=True)
    wiring.store.create("m1", [NewEvent("E", {"n": 1})], {})
    live = wiring.streams.live
    follower = Follower(live.follow("m1", 1, 60_000))
    wait_for(lambda: live.hub.subscribers(wiring.store.events_key("m1")) == 1)
    live.close()
    wait_for(lambda: follower.done)
    assert follower.received == [] and live.hub.watched() == set()
    wiring.close()


def test_a_companion_shared_by_several_matches_is_read_after_every_followed_key(wiring):
    """An organiser key's revocation is announced on one key that the streams of all the
    organiser's matches follow beside their events. The hub reads every followed key of
    one read before any companion: were the announcement read before another match's
    events, an event appended after the revocation could reach a stream a take before
    the revocation does."""
    hub, keys = wiring.streams.live.hub, ["m1:events", "m1:live", "m2:events", "m2:live"]
    first = hub.subscribe({"m1:events": "0-0", "m1:live": "0-0", "announced": "0-0"}, 30)
    second = hub.subscribe({"m2:events": "0-0", "m2:live": "0-0", "announced": "0-0"}, 30)
    with hub._lock:
        order = hub._companions({"m1:events", "m2:events"})
    assert order[:2] == ["m1:events", "m2:events"]
    assert set(order[2:]) == {"m1:live", "m2:live", "announced"}
    assert set(order) == {*keys, "announced"}
    hub.unsubscribe(first)
    hub.unsubscribe(second)
