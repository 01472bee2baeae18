"""The game variants this server referees, with their options."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from domain.variants import VARIANTS
from service.api.base import ApiBlueprint
from service.api.schemas import VariantListSchema

blp = ApiBlueprint("variants", __name__, url_prefix="/v1/variants",
                   description="Game variants and their match options")


@blp.route("")
class Variants(MethodView):
    @blp.response(200, VariantListSchema)
    def get(self) -> Any:
        """List the variants, each option with its type, default and allowed values."""
        return {"variants": [variant.describe() for variant in VARIANTS.values()]}
