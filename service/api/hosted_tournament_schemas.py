"""Schemas of the tournaments the server hosts: creation, views, standings, rounds."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.bots import LEVELS
from domain.tournaments.events import FORMATS
from domain.tournaments.standings import DEFAULT_TIE_BREAKS, TIE_BREAKS
from domain.variants import VARIANTS
from service.api.control_schemas import ClockSchema, reason_field
from service.api.inputs import json_integer
from service.api.plain_text import PlainText
from service.api.schemas import NAME_RULE
from service.usecases.hosted_tournaments import MAX_ENTRANTS, MAX_ROUND_BREAK_S


class EntrantSchema(Schema):
    """An entrant: a person (a name, and optionally the organiser's id for them) or a
    computer player (``bot``: its level)."""

    name = PlainText(max_length=64, metadata={
        "description": NAME_RULE + ". Required for a person; a bot's default is its level's "
                       "and number (\"Basic bot 3\")"})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: the entrant's id in the organiser's system"})
    bot = fields.String(allow_none=True, validate=validate.OneOf(LEVELS), metadata={
        "description": "A computer player's level; the server plays its tables"})


class RegistrationSchema(Schema):
    max_players = json_integer(validate=validate.Range(min=2, max=MAX_ENTRANTS), metadata={
        "description": f"Entrants at most (default {MAX_ENTRANTS})", "minimum": 2,
        "maximum": MAX_ENTRANTS})
    starts_at = fields.Float(allow_none=True, metadata={
        "description": "When it starts by itself (epoch seconds, within 30 days); null: "
                       "when the organiser starts it (POST .../start). It is called off "
                       "if fewer than two have entered by then"})


class TournamentCreateSchema(Schema):
    name = PlainText(max_length=128, metadata={"description": "Default: the variant and format"})
    variant = fields.String(required=True, validate=validate.OneOf(sorted(VARIANTS)),
                            metadata={"description": "gin, gem, rummy or rami"})
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={
        "description": "Every match's options (GET /v1/variants)"})
    format = fields.String(load_default="swiss", validate=validate.OneOf(FORMATS), metadata={
        "description": "How rounds are paired (docs/tournaments.md)"})
    players = fields.List(fields.Nested(EntrantSchema), load_default=list,
                          validate=validate.Length(max=MAX_ENTRANTS), metadata={
        "description": "The entrants in seeding order: the first is the top seed. At "
                       "least two, unless it is open for entry (registration)"})
    registration = fields.Nested(RegistrationSchema, allow_none=True, metadata={
        "description": "Open for entry before it starts: it is listed at GET "
                       "/v1/lobby/tournaments and players join with POST .../join"})
    round_break_s = fields.Float(load_default=0, validate=validate.Range(
        min=0, max=MAX_ROUND_BREAK_S), metadata={
        "description": "Seconds between a round's pairing and its tables opening: players "
                       "see their next table, and the organiser may re-pair the round "
                       "(not for an arena)", "minimum": 0, "maximum": MAX_ROUND_BREAK_S})
    duplicate_deals = fields.Boolean(load_default=False, metadata={
        "description": "Every table of a round is dealt the same cards, seat by seat"})
    table_size = json_integer(load_default=2, metadata={
        "description": "Seats at each table, within the variant's players (gin 2-4, gem "
                       "2-3, rummy and rami 2-6); eliminations take 2", "minimum": 2,
        "maximum": 6}, validate=validate.Range(min=2, max=6))
    rounds = json_integer(allow_none=True, validate=validate.Range(min=1, max=64), metadata={
        "description": "A Swiss's rounds (default: enough to leave one leader, at most "
                       "entrants - 1); only for a Swiss", "minimum": 1, "maximum": 64})
    tie_breaks = fields.List(fields.String(validate=validate.OneOf(TIE_BREAKS)),
                             validate=validate.Length(max=len(TIE_BREAKS)), metadata={
        "description": "Tie-breaks after match points, in order (docs/tournaments.md); "
                       f"default {list(DEFAULT_TIE_BREAKS)}"})
    clock = fields.Nested(ClockSchema, allow_none=True, metadata={
        "description": "Every match's clock (as POST /v1/matches)"})
    minutes = json_integer(allow_none=True, validate=validate.Range(min=1, max=24 * 60),
                           metadata={"description": "An arena's length (arena only, and "
                                                    "required there)", "minimum": 1,
                                     "maximum": 24 * 60})


class WithdrawSchema(Schema):
    entrant = json_integer(required=True, validate=validate.Range(min=0, max=MAX_ENTRANTS - 1),
                           metadata={"description": "The entrant's number", "minimum": 0,
                                     "maximum": MAX_ENTRANTS - 1})
    reason = reason_field()


class AbortTournamentSchema(Schema):
    reason = reason_field()


class RepairSchema(Schema):
    tables = fields.List(fields.List(json_integer(validate=validate.Range(
        min=0, max=MAX_ENTRANTS - 1)), validate=validate.Length(min=2, max=6)),
        allow_none=True, validate=validate.Length(max=MAX_ENTRANTS), metadata={
            "description": "A Swiss only: the tables as you place them, entrants by seat; "
                           "leave out to pair again by the format"})
    byes = fields.List(json_integer(validate=validate.Range(min=0, max=MAX_ENTRANTS - 1)),
                       validate=validate.Length(max=MAX_ENTRANTS), metadata={
        "description": "With tables: the entrants who sit the round out"})


class JoinSchema(Schema):
    name = PlainText(required=True, max_length=64, metadata={"description": NAME_RULE})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: your id in the organiser's system (ratings use it)"})


class JoinedSchema(Schema):
    tournament_id = fields.String(required=True)
    entrant = fields.Integer(required=True, metadata={"description": "Your number"})
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={
        "description": "Your player token, shown this once: GET .../me with it finds your "
                       "table, where it is your seat token"})


class EntrantViewSchema(Schema):
    entrant = fields.Integer(required=True, metadata={"description": "Its number (seed order)"})
    name = fields.String(required=True)
    external_id = fields.String(allow_none=True, required=True)
    bot = fields.String(allow_none=True, required=True)
    withdrawn = fields.Boolean(required=True)


class EntrantCreatedSchema(EntrantViewSchema):
    token = fields.String(allow_none=True, required=True, metadata={
        "description": "The person's player token, shown this once: GET .../me with it "
                       "finds their table, where it is their seat token; null for a bot"})


class StandingSchema(Schema):
    rank = fields.Integer(required=True, metadata={"description": "Shared by full ties"})
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True, metadata={"description": "Match points"})
    played = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    tie_breaks = fields.Dict(keys=fields.String(), values=fields.Float(), required=True)
    withdrawn = fields.Boolean(required=True)


class RegistrationViewSchema(Schema):
    max_players = fields.Integer(required=True)
    starts_at = fields.Float(allow_none=True, required=True)
    open = fields.Boolean(required=True, metadata={"description": "Players may join now"})


class TournamentSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "Events in its log"})
    name = fields.String(required=True)
    variant = fields.String(required=True)
    options = fields.Dict(keys=fields.String(), required=True)
    format = fields.String(required=True)
    table_size = fields.Integer(required=True)
    rounds = fields.Integer(allow_none=True, required=True)
    tie_breaks = fields.List(fields.String(), required=True)
    clock = fields.Dict(keys=fields.String(), allow_none=True, required=True)
    ends_at = fields.Float(allow_none=True, required=True, metadata={
        "description": "An arena's end (epoch seconds); null for the other formats, and "
                       "before an arena open for entry starts"})
    registration = fields.Nested(RegistrationViewSchema, allow_none=True, required=True,
                                 metadata={"description": "Null: it started at creation"})
    round_break_s = fields.Float(required=True)
    duplicate_deals = fields.Boolean(required=True)
    status = fields.String(required=True, metadata={
        "description": "registering (open for entry), running, complete or aborted"})
    round = fields.Integer(required=True, metadata={"description": "Rounds paired so far"})
    entrants = fields.List(fields.Nested(EntrantViewSchema), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class TournamentCreatedSchema(TournamentSchema):
    entrants = fields.List(fields.Nested(EntrantCreatedSchema), required=True)


class StandingsSchema(Schema):
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class StandingsQuerySchema(Schema):
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class EntrantRefSchema(Schema):
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)


class TableSeatSchema(EntrantRefSchema):
    seat = fields.Integer(required=True)
    points = fields.Float(allow_none=True, required=True, metadata={
        "description": "Match points once recorded"})
    game_points = fields.Float(allow_none=True, required=True, metadata={
        "description": "The seat's score in the match, more is better (negated where low "
                       "scores win)"})


class TableSchema(Schema):
    table = fields.Integer(required=True)
    match_id = fields.String(required=True, metadata={
        "description": "The table's match (GET /v1/matches/{match_id}, its log and replay)"})
    seats = fields.List(fields.Nested(TableSeatSchema), required=True)
    finished = fields.Boolean(required=True, metadata={"description": "Its result is recorded"})
    forfeit = fields.Boolean(required=True)


class RoundSchema(Schema):
    round = fields.Integer(required=True)
    opened = fields.Boolean(required=True, metadata={"description": "Its matches exist"})
    opens_at = fields.Float(allow_none=True, required=True, metadata={
        "description": "Until its tables open: when they will (the round break); else "
                       "null"})
    pairings = fields.Integer(required=True, metadata={
        "description": "How many times it was paired (more than 1: re-paired)"})
    completed = fields.Boolean(required=True)
    byes = fields.List(fields.Nested(EntrantRefSchema), required=True)
    tables = fields.List(fields.Nested(TableSchema), required=True)


class RatingsQuerySchema(Schema):
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class RatedPlayerSchema(Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={
        "description": "id:<external_id>, name:<name>, or bot:<level>"})
    name = fields.String(required=True)
    rating = fields.Integer(required=True, metadata={
        "description": "Shown rating: 1500 + 24 x (mu - 3 sigma), 1500 for a new player"})
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    games = fields.Integer(required=True, metadata={"description": "Tables rated"})


class RatingsSchema(Schema):
    variant = fields.String(required=True)
    total = fields.Integer(required=True, metadata={"description": "Players rated"})
    players = fields.List(fields.Nested(RatedPlayerSchema), required=True)


class MyTableSchema(Schema):
    table = fields.Integer(required=True)
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={
        "description": "Your seat; act there with your player token"})
    result_recorded = fields.Boolean(required=True)


class UpcomingTableSchema(Schema):
    table = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    opens_at = fields.Float(allow_none=True, required=True)
    opponents = fields.List(fields.Nested(EntrantRefSchema), required=True)


class OpenTournamentsQuerySchema(Schema):
    variant = fields.String(validate=validate.OneOf(sorted(VARIANTS)), metadata={
        "description": "Only tournaments of this variant"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Regexp(r"^[0-9]{1,9}$"), metadata={
        "description": "next_cursor of the previous page"})


class OpenTournamentsSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), required=True, metadata={
        "description": "Tournaments open for entry (status registering), newest first"})
    next_cursor = fields.String(required=True, allow_none=True)


class MeSchema(Schema):
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)
    round = fields.Integer(required=True)
    status = fields.String(required=True)
    bye = fields.Boolean(required=True, metadata={"description": "You sit this round out"})
    table = fields.Nested(MyTableSchema, allow_none=True, required=True, metadata={
        "description": "Your table this round once its matches exist; null between rounds, "
                       "on a bye, once the tournament is over"})
    upcoming = fields.Nested(UpcomingTableSchema, allow_none=True, required=True, metadata={
        "description": "Your table this round while the round break runs (its match does "
                       "not exist yet); else null"})
