"""Match options as data: every knob of a variant is one ``OptionSpec`` (docs/rules.md
marks them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from domain.errors import OptionError

_TYPE_NAMES = {bool: "boolean", int: "integer", str: "string"}


@dataclass(frozen=True)
class OptionSpec:
    """One option: its type, default, and either allowed ``choices`` or a numeric range."""

    name: str
    type: type
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": _TYPE_NAMES[self.type],
            "default": self.default,
            "nullable": self.nullable,
            "description": self.description,
        }
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out

    def parse(self, value: Any) -> Any:
        """Check one supplied value; raise ``OptionError`` naming the option."""
        if value is None:
            if self.nullable:
                return None
            raise OptionError(self.name, "may not be null")
        if self.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(self.name, "must be an integer")
        if self.type is not int and not isinstance(value, self.type):
            raise OptionError(self.name, f"must be a {_TYPE_NAMES[self.type]}")
        if self.choices is not None and value not in self.choices:
            raise OptionError(self.name, f"must be one of {list(self.choices)}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(self.name, f"must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(self.name, f"must be at most {self.maximum}")
        return value


def parse_options(specs: tuple[OptionSpec, ...], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with ``raw``; unknown names and bad values raise ``OptionError``."""
    raw = raw or {}
    known = {spec.name: spec for spec in specs}
    for name in raw:
        if name not in known:
            raise OptionError(name, "unknown option")
    return {spec.name: spec.parse(raw[spec.name]) if spec.name in raw else spec.default
            for spec in specs}


def check_first_dealer(first_dealer: int | None, players: int) -> None:
    """A fixed first dealer must be one of the match's seats."""
    if first_dealer is not None and first_dealer >= players:
        raise OptionError("first_dealer", f"must be a seat below {players}")


class MatchOptions:
    """What every family's frozen options dataclass shares: parsing against its ``SPECS``
    (set on the class once they are built from its defaults) and the plain-dict form."""

    SPECS: ClassVar[tuple[OptionSpec, ...]] = ()
    first_dealer: int | None

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, players: int) -> Self:
        """Validate client options for a match of ``players`` seats."""
        options = cls(**parse_options(cls.SPECS, raw))
        check_first_dealer(options.first_dealer, players)
        return options

    def to_dict(self) -> dict[str, Any]:
        return {spec.name: getattr(self, spec.name) for spec in self.SPECS}

    @classmethod
    def spec(cls, name: str, description: str, type_: type | None = None,
             **limits: Any) -> OptionSpec:
        """An option described for clients, its default taken from the class."""
        default = getattr(cls, name)
        return OptionSpec(name, type_ or type(default), default, description, **limits)
