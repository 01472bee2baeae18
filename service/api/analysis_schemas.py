"""Schemas of post-game analyses (``/v1/matches/{id}/analyses``)."""

from __future__ import annotations

from marshmallow import Schema, fields

from domain.bots.analysis import LABELS
from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from service.api.inputs import json_integer
from service.api.schemas import Verbatim
from service.usecases.analyses import DEFAULT_SEED, SAMPLES, SAMPLES_MAX, SEED_MAX

STATUSES = ("queued", "running", "done", "failed")


class AnalysisRequestSchema(Schema):
    """What to analyse with; every field optional (400 ``invalid_analysis`` out of bounds)."""

    seed = fields.String(metadata={
        "description": f"The analysis's randomness (1-{SEED_MAX} characters); default "
                       f"\"{DEFAULT_SEED}\". The same seed and parameters give the same "
                       "decisions, costs and labels", "minLength": 1, "maxLength": SEED_MAX})
    budget_ms = json_integer(metadata={
        "description": f"The expert's budget per decision (1-{MAX_MS} ms, counted in "
                       f"iterations); default {DEFAULT_MS}",
        "minimum": 1, "maximum": MAX_MS})
    samples = json_integer(metadata={
        "description": f"Deals each decision's two moves are appraised on (1-{SAMPLES_MAX}); "
                       "default per variant, "
                       + ", ".join(f"{name} {count}" for name, count in SAMPLES.items()),
        "minimum": 1, "maximum": SAMPLES_MAX})


class AnalysisParametersSchema(Schema):
    seed = fields.String(required=True)
    budget_ms = fields.Integer(required=True)
    samples = fields.Integer(required=True)


class DecisionSchema(Schema):
    """One decision of one seat, weighed against the expert's choice."""

    index = fields.Integer(required=True, metadata={
        "description": "Where the move's event is in the log (from 0: version - 1)"})
    hand_number = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    information = fields.Dict(required=True, metadata={
        "description": "What the seat knew then: phase, hand, discard_pile, stock, "
                       "hand_sizes, known (cards of other hands it has seen, by seat), "
                       "scores; rummy and rami add table and opened"})
    played = fields.Dict(required=True, metadata={"description": "The action played"})
    expert = fields.Dict(required=True, metadata={
        "description": "The action the expert chose in the seat's place"})
    cost = fields.Float(required=True, metadata={
        "description": "Expected points the move played lost against the expert's (0 when "
                       "they are the same move), in the variant's points"})
    samples = fields.Integer(required=True, metadata={
        "description": "Deals the two moves were appraised on (0 when they are the same)"})
    label = fields.String(required=True, metadata={"enum": list(LABELS)})


class LabelCountsSchema(Schema):
    fine = fields.Integer(required=True)
    inaccuracy = fields.Integer(required=True)
    mistake = fields.Integer(required=True)
    blunder = fields.Integer(required=True)


class SeatAnalysisSchema(Schema):
    seat = fields.Integer(required=True)
    decisions = fields.Integer(required=True, metadata={
        "description": "The seat's decisions weighed (moves with a choice)"})
    labels = fields.Nested(LabelCountsSchema, required=True)
    mean_cost = fields.Float(required=True, metadata={
        "description": "Mean cost of its decisions (0 without any)"})


class ThresholdsSchema(Schema):
    """Costs (in the variant's points) from which a move is labelled so; below the first
    it is ``fine``."""

    inaccuracy = fields.Float(required=True)
    mistake = fields.Float(required=True)
    blunder = fields.Float(required=True)


class AnalysisSchema(Schema):
    id = fields.String(required=True, metadata={
        "description": "A digest of the log's head and the parameters: the same for the "
                       "same request"})
    match_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    variant = fields.String(required=True)
    players = fields.Integer(required=True)
    parameters = fields.Nested(AnalysisParametersSchema, required=True)
    thresholds = fields.Nested(ThresholdsSchema, required=True)
    requested_at = fields.Float(required=True, metadata={"description": "Epoch seconds"})
    started_at = fields.Float(metadata={"description": "Once running: epoch seconds"})
    finished_at = fields.Float(metadata={"description": "Once done or failed: epoch seconds"})
    decisions = Verbatim(DecisionSchema, many=True, metadata={
        "description": "Once done: every decision of every seat with a choice, in log order"})
    summary = fields.List(fields.Nested(SeatAnalysisSchema), metadata={
        "description": "Once done: one entry per seat"})
    reason = fields.String(metadata={"description": "Once failed: why"})
