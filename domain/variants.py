"""Variant name -> game family."""

from __future__ import annotations

from domain.family import Family
from domain.gem import GEM
from domain.gin import GIN
from domain.rummy import RAMI, RUMMY

VARIANTS: dict[str, Family] = {family.name: family for family in (GIN, GEM, RUMMY, RAMI)}
