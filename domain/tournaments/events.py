"""A tournament's events: its own stream, hash-chained like a match's, in the event catalog.

Every pairing and every recorded result is an event, so a verifier can replay a
tournament's log, pair every round again from the results recorded before it and compare,
and check each recorded result against its match's own log.
"""

from __future__ import annotations

from domain.events import (
    EventType,
    Field,
    array,
    boolean,
    integer,
    mapping,
    nullable,
    number,
    obj,
    string,
)

FORMATS = ("round_robin", "double_round_robin", "swiss", "single_elimination",
           "double_elimination", "arena")
"""The tournament formats the server pairs (docs/tournaments.md)."""

ENTRANT = obj({"name": string(), "external_id": nullable(string()),
               "bot": nullable(string())}, open_=False)
TABLE = obj({"table": integer(0), "match_id": string(), "seats": array(integer(0))},
            open_=False)
REGISTRATION = obj({"max_players": integer(2), "starts_at": nullable(number())}, open_=False)

TOURNAMENT_CREATED = EventType(
    "TournamentCreated", schema=1, appended_by="the organiser, at the tournament's creation",
    description="A tournament is set up: its entrants in seeding order, the variant and "
                "options of every match, the format and how standings break ties.",
    fields=(
        Field("id", "the tournament's id (its matches' ids are derived from it)",
              schema=string()),
        Field("name", "the tournament's name", schema=string()),
        Field("variant", "the variant every match plays", schema=string()),
        Field("options", "every match's options", schema=mapping()),
        Field("format", "how rounds are paired", schema=string(*FORMATS)),
        Field("table_size", "seats at each table", schema=integer(2)),
        Field("rounds", "the rounds a Swiss plays; null for the other formats",
              schema=nullable(integer(1))),
        Field("tie_breaks", "the tie-breaks after match points, in order",
              schema=array(string())),
        Field("entrants", "the entrants in seeding order (entrant 0 is the top seed); a "
                          "bot entrant names its level", schema=array(ENTRANT)),
        Field("clock", "every match's clock settings, or null", schema=nullable(mapping())),
        Field("ends_at", "an arena's end (epoch seconds): no table is paired after it; null "
                         "for the other formats and for an arena open for entry (its "
                         "TournamentStarted says)", schema=nullable(number())),
        Field("minutes", "an arena's length in minutes; null for the other formats",
              schema=nullable(integer(1))),
        Field("registration", "open for entry until it starts: at most max_players "
                              "entrants, and when it starts by itself (null: when the "
                              "organiser starts it); null when it started at its creation",
              schema=nullable(REGISTRATION)),
        Field("round_break_s", "seconds between a round's pairing and its tables opening "
                               "(a re-pairing may come in between)", schema=number()),
        Field("duplicate_deals", "every table of a round is dealt the same cards",
              schema=boolean()),
    ))

ENTRANT_JOINED = EventType(
    "EntrantJoined", schema=1, appended_by="a player, while the tournament is open for entry",
    description="A person enters the tournament before it starts; they are the next "
                "entrant in seeding order.",
    fields=(
        Field("name", "the entrant's name", schema=string()),
        Field("external_id", "the entrant's id in the organiser's system, or null",
              schema=nullable(string())),
        Field("entry", "names where the entrant's player token is kept (never the token)",
              schema=string()),
    ))

TOURNAMENT_STARTED = EventType(
    "TournamentStarted", schema=1,
    appended_by="the organiser, or system step at the registration's start time",
    description="Entry closes and play begins with the entrants so far; the first round's "
                "pairing follows in the same append.",
    fields=(
        Field("rounds", "a Swiss's rounds, as the entrants at the start allow; null for "
                        "the other formats", schema=nullable(integer(1))),
        Field("ends_at", "an arena's end (epoch seconds), minutes after the start; null "
                         "for the other formats", schema=nullable(number())),
    ))

ROUND_PAIRED = EventType(
    "RoundPaired", schema=1, appended_by="system step (the tournament's progress)",
    description="A round is paired: its tables (each a match, entrants by seat) and who "
                "sits out with a bye.",
    fields=(
        Field("round", "the round's number, from 1", schema=integer(1)),
        Field("tables", "each table: its number, its match's id, its entrants by seat",
              schema=array(TABLE)),
        Field("byes", "the entrants with a bye this round", schema=array(integer(0))),
        Field("opens_at", "when its tables open (epoch seconds: the pairing's time plus "
                          "the round break), or null for at once",
              schema=nullable(number())),
    ))

ROUND_REPAIRED = EventType(
    "RoundRepaired", schema=1, appended_by="the organiser, before the round's tables open",
    description="A round not yet started is paired again: by the format from the same "
                "results, leaving out who has withdrawn since, or (a Swiss) as the "
                "organiser placed the entrants. Its tables get new match ids.",
    fields=(
        Field("round", "the round", schema=integer(1)),
        Field("tables", "each table: its number, its match's id, its entrants by seat",
              schema=array(TABLE)),
        Field("byes", "the entrants with a bye this round", schema=array(integer(0))),
        Field("manual", "the organiser placed the entrants", schema=boolean()),
    ))

TABLES_OPENED = EventType(
    "TablesOpened", schema=1, appended_by="system step (the tournament's progress)",
    description="Every match of the round exists: players can find their tables.",
    fields=(Field("round", "the round whose matches were created", schema=integer(1)),))

MATCH_RECORDED = EventType(
    "MatchRecorded", schema=1, appended_by="system step (the tournament's progress)",
    description="A table's match has ended and its result counts: each seat's finishing "
                "rank, match points and game points, as read from the match's log.",
    fields=(
        Field("round", "the round", schema=integer(1)),
        Field("table", "the table's number in the round", schema=integer(0)),
        Field("match_id", "the match", schema=string()),
        Field("ranks", "each seat's finishing rank, 0 first (ties share a rank)",
              schema=array(integer(0))),
        Field("points", "each seat's match points (docs/tournaments.md)",
              schema=array(number())),
        Field("game_points", "each seat's score in the match, oriented so more is better",
              schema=array(number())),
        Field("forfeit", "the match ended by a forfeit or was called off",
              schema=boolean()),
    ))

ROUND_COMPLETED = EventType(
    "RoundCompleted", schema=1, appended_by="system step (the tournament's progress)",
    description="Every table of the round has a result.",
    fields=(Field("round", "the round", schema=integer(1)),))

PLAYER_WITHDRAWN = EventType(
    "PlayerWithdrawn", schema=1, appended_by="the organiser",
    description="An entrant leaves the tournament: no later round pairs them; a match "
                "they are playing is theirs to forfeit (the organiser's forfeit control).",
    fields=(
        Field("entrant", "the entrant who withdraws", schema=integer(0)),
        Field("reason", "why, in the organiser's words", schema=string()),
    ))

TOURNAMENT_COMPLETED = EventType(
    "TournamentCompleted", schema=1, appended_by="system step (the tournament's progress)",
    description="The last round is complete: the final standings.",
    fields=(
        Field("standings", "every entrant's final rank and match points, best first",
              schema=array(obj({"rank": integer(1), "entrant": integer(0),
                                "points": number()}, open_=False))),
    ))

TOURNAMENT_ABORTED = EventType(
    "TournamentAborted", schema=1, appended_by="the organiser",
    description="The tournament is called off: no more rounds are paired; matches "
                "already running play on but no longer count.",
    fields=(Field("reason", "why, in the organiser's words", schema=string()),))

RESULTS_RATED = EventType(
    "ResultsRated", schema=1, appended_by="system step (ratings)",
    description="The recorded results up to this count have updated the players' "
                "ratings of the variant, each once, in the order they were recorded.",
    fields=(Field("upto", "how many recorded results are rated now", schema=integer(0)),))

EVENT_TYPES = (TOURNAMENT_CREATED, ENTRANT_JOINED, TOURNAMENT_STARTED, ROUND_PAIRED,
               ROUND_REPAIRED, TABLES_OPENED, MATCH_RECORDED, ROUND_COMPLETED,
               PLAYER_WITHDRAWN, TOURNAMENT_COMPLETED, TOURNAMENT_ABORTED, RESULTS_RATED)
