"""The general dice roller behind ``/roll`` and ``chessgarden roll``: our own small grammar.

Grammar (case-insensitive; spaces between tokens are ignored)::

    expression := [sign] term (sign term)*
    sign       := "+" | "-"
    term       := dice | number
    dice       := [number] "d" (number | "%") [keep]
    keep       := ("kh" | "kl" | "dh" | "dl" | "k") [number]      # "k" means "kh"; the count defaults to 1

Examples: ``2d4``, ``d20+3``, ``4d6kh3``, ``4d6dl1``, ``2d20kl1``, ``d%``, ``3d8 + 1d6 - 2``.

Limits: at most 100 dice in all, 1,000 sides per die, 100 characters, and numbers up to
1,000,000. Every malformed or oversized expression raises ``DiceExpressionError`` (a
``ValueError``) with a one-line message. The random source is injected: a callable
``sides -> value in 1..sides`` or a ``random.Random``; the default uses ``secrets``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.i18n import Said, said

MAX_DICE = 100
MAX_SIDES = 1000
MAX_LENGTH = 100
MAX_NUMBER = 1_000_000

KeepMode = Literal["kh", "kl", "dh", "dl"]
DieRoller = Callable[[int], int]


class DiceExpressionError(ValueError):
    """A dice expression that cannot be rolled. The message is one line, for the user;
    said (``bot.i18n.said``), it is kept as ``said`` for a front end to translate, as a
    ``ServiceError`` keeps it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.said = message if isinstance(message, Said) else None


@dataclass(frozen=True)
class DiceTerm:
    """``count`` dice of ``sides`` sides, maybe keeping or dropping some, added with ``sign``."""

    sign: int
    count: int
    sides: int
    keep: KeepMode | None = None
    keep_count: int = 0
    percent: bool = False

    @property
    def text(self) -> str:
        sides = "%" if self.percent else str(self.sides)
        keep = f"{self.keep}{self.keep_count}" if self.keep else ""
        return f"{self.count}d{sides}{keep}"


@dataclass(frozen=True)
class ConstantTerm:
    sign: int
    value: int

    @property
    def text(self) -> str:
        return str(self.value)


Term = DiceTerm | ConstantTerm


@dataclass(frozen=True)
class TermResult:
    term: Term
    rolls: tuple[int, ...]
    kept: tuple[bool, ...]
    subtotal: int  # signed contribution to the total

    @property
    def text(self) -> str:
        if isinstance(self.term, ConstantTerm):
            return self.term.text
        shown = [str(v) if k else f"~~{v}~~" for v, k in zip(self.rolls, self.kept, strict=True)]
        return f"{self.term.text} [{', '.join(shown)}]"


@dataclass(frozen=True)
class DiceResult:
    expression: str  # normalized, e.g. "4d6kh3 + 2"
    total: int
    terms: tuple[TermResult, ...]

    @property
    def breakdown(self) -> str:
        """One line, e.g. ``4d6kh3 [6, 4, 3, ~~1~~] + 2 = 15``."""
        parts: list[str] = []
        for index, result in enumerate(self.terms):
            sign = "-" if result.term.sign < 0 else "+"
            if index == 0:
                parts.append(("-" if sign == "-" else "") + result.text)
            else:
                parts.append(f"{sign} {result.text}")
        return f"{' '.join(parts)} = {self.total}"


@dataclass(frozen=True)
class DiceExpression:
    terms: tuple[Term, ...]

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.terms if isinstance(t, DiceTerm))

    @property
    def text(self) -> str:
        out: list[str] = []
        for index, term in enumerate(self.terms):
            if index == 0:
                out.append(("-" if term.sign < 0 else "") + term.text)
            else:
                out.append(f"{'-' if term.sign < 0 else '+'} {term.text}")
        return " ".join(out)

    def roll(self, rng: DieRoller | random.Random | None = None) -> DiceResult:
        roller = _roller(rng)
        results: list[TermResult] = []
        total = 0
        for term in self.terms:
            if isinstance(term, ConstantTerm):
                subtotal = term.sign * term.value
                results.append(TermResult(term, (), (), subtotal))
            else:
                rolls = tuple(_checked(roller, term.sides) for _ in range(term.count))
                kept = _kept(rolls, term.keep, term.keep_count)
                subtotal = term.sign * sum(v for v, k in zip(rolls, kept, strict=True) if k)
                results.append(TermResult(term, rolls, kept, subtotal))
            total += subtotal
        return DiceResult(self.text, total, tuple(results))


def roll_dice(text: str, rng: DieRoller | random.Random | None = None) -> DiceResult:
    """Parse and roll ``text``; raises ``DiceExpressionError`` with a one-line message."""
    return parse_dice(text).roll(rng)


def parse_dice(text: str) -> DiceExpression:
    """Parse ``text`` into a ``DiceExpression`` without rolling it."""
    if not isinstance(text, str):
        raise DiceExpressionError(said("a dice expression must be text, like 2d6+3"))
    if len(text) > MAX_LENGTH:
        raise DiceExpressionError(
            said(
                "the expression is too long ({length} characters; at most {n})",
                length=len(text),
                n=MAX_LENGTH,
            )
        )
    parser = _Parser(text)
    expression = parser.parse()
    if not any(isinstance(t, DiceTerm) for t in expression.terms):
        raise DiceExpressionError(said("the expression rolls no dice; try something like d20+3"))
    if expression.dice_count > MAX_DICE:
        raise DiceExpressionError(
            said(
                "too many dice ({count}; at most {n} in one expression)",
                count=expression.dice_count,
                n=MAX_DICE,
            )
        )
    return expression


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = text.lower()
        self.pos = 0

    def parse(self) -> DiceExpression:
        self._skip_spaces()
        if self.pos >= len(self.text):
            raise DiceExpressionError(said("the expression is empty; try something like 2d6+3"))
        terms: list[Term] = []
        sign = 1
        if self._peek() in "+-":
            sign = -1 if self._peek() == "-" else 1
            self.pos += 1
        terms.append(self._term(sign))
        while True:
            self._skip_spaces()
            if self.pos >= len(self.text):
                return DiceExpression(tuple(terms))
            char = self._peek()
            if char not in "+-":
                raise self._unexpected(said("expected + or - between terms"))
            self.pos += 1
            terms.append(self._term(-1 if char == "-" else 1))

    def _term(self, sign: int) -> Term:
        self._skip_spaces()
        if self.pos >= len(self.text):
            raise DiceExpressionError(
                said("the expression ends with a sign; a number or dice must follow")
            )
        start = self.pos
        count = self._number("a number of dice")
        if self._peek() != "d":
            if count is None:
                raise self._unexpected(said("expected a number or dice like 2d6"))
            return ConstantTerm(sign, count)
        self.pos += 1
        if count is None:
            count = 1
        if count == 0:
            raise DiceExpressionError(
                said("'{term}' rolls no dice; use at least 1", term=self.text[start : self.pos])
            )
        percent = False
        if self._peek() == "%":
            self.pos += 1
            sides, percent = 100, True
        else:
            number = self._number("sides")
            if number is None:
                raise self._unexpected(
                    said("expected the number of sides after 'd', like d6 or d%")
                )
            sides = number
        if sides < 1:
            raise DiceExpressionError(said("a die needs at least 1 side"))
        if sides > MAX_SIDES:
            raise DiceExpressionError(
                said("d{sides} has too many sides (at most {n})", sides=sides, n=MAX_SIDES)
            )
        if count > MAX_DICE:
            raise DiceExpressionError(
                said(
                    "too many dice ({count}; at most {n} in one expression)",
                    count=count,
                    n=MAX_DICE,
                )
            )
        keep, keep_count = self._keep(count)
        return DiceTerm(sign, count, sides, keep, keep_count, percent)

    def _keep(self, count: int) -> tuple[KeepMode | None, int]:
        head = self.lower[self.pos : self.pos + 2]
        mode: KeepMode
        if head in ("kh", "kl", "dh", "dl"):
            mode = head  # type: ignore[assignment]
            self.pos += 2
        elif head[:1] == "k":
            mode = "kh"
            self.pos += 1
        else:
            return None, 0
        number = self._number("dice to keep or drop")
        amount = 1 if number is None else number
        if mode in ("kh", "kl"):
            if amount < 1:
                raise DiceExpressionError(
                    said("{keep} keeps no dice; keep at least 1", keep=f"{mode}{amount}")
                )
            if amount > count:
                raise DiceExpressionError(
                    said(
                        "{keep} keeps more dice than the {count} rolled",
                        keep=f"{mode}{amount}",
                        count=count,
                    )
                )
        elif amount >= count:
            raise DiceExpressionError(
                said(
                    "{keep} drops all {count} dice; drop fewer", keep=f"{mode}{amount}", count=count
                )
            )
        return mode, amount

    def _number(self, what: str) -> int | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        if self.pos == start:
            return None
        digits = self.text[start : self.pos]
        if len(digits) > 7 or int(digits) > MAX_NUMBER:
            raise DiceExpressionError(
                said(
                    "the number {number} is too large (at most {n})",
                    number=digits[:12],
                    n=format(MAX_NUMBER, ","),
                )
            )
        return int(digits)

    def _peek(self) -> str:
        return self.lower[self.pos] if self.pos < len(self.lower) else ""

    def _skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def _unexpected(self, hint: str) -> DiceExpressionError:
        char = self.text[self.pos] if self.pos < len(self.text) else ""
        if not char:
            return DiceExpressionError(said("the expression ends too early: {hint}", hint=hint))
        return DiceExpressionError(
            said(
                "unexpected {char} at position {position}: {hint}",
                char=repr(char),
                position=self.pos + 1,
                hint=hint,
            )
        )


def _kept(rolls: tuple[int, ...], mode: KeepMode | None, amount: int) -> tuple[bool, ...]:
    if mode is None:
        return tuple(True for _ in rolls)
    order = sorted(range(len(rolls)), key=lambda i: (rolls[i], i))  # lowest first
    if mode == "kh":
        chosen = set(order[len(rolls) - amount :])
    elif mode == "kl":
        chosen = set(order[:amount])
    elif mode == "dh":
        chosen = set(order[: len(rolls) - amount])
    else:  # "dl"
        chosen = set(order[amount:])
    return tuple(i in chosen for i in range(len(rolls)))


def _secret_roll(sides: int) -> int:
    return secrets.randbelow(sides) + 1


def _roller(rng: DieRoller | random.Random | None) -> DieRoller:
    if rng is None:
        return _secret_roll
    if isinstance(rng, random.Random):
        seeded = rng
        return lambda sides: seeded.randint(1, sides)
    return rng


def _checked(roller: DieRoller, sides: int) -> int:
    value = roller(sides)
    if not isinstance(value, int) or not 1 <= value <= sides:
        raise RuntimeError(f"the dice source returned {value!r} for a d{sides}")
    return value
