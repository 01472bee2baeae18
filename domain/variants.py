"""Variant name -> game family."""

from __future__ import annotations

from domain.gem import GEM
from domain.gin import GIN
from domain.rummy import RAMI, RUMMY
from domain.variant import Variant

VARIANTS: dict[str, Variant] = {variant.name: variant for variant in (GIN, GEM, RUMMY, RAMI)}
