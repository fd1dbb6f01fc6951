"""The general dice roller: grammar, limits, one-line errors, fuzzing."""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.dice_expr import (
    MAX_DICE,
    MAX_LENGTH,
    MAX_SIDES,
    DiceExpressionError,
    DiceResult,
    parse_dice,
    roll_dice,
)


def scripted(*values: int) -> Callable[[int], int]:
    queue = list(values)

    def roll(sides: int) -> int:
        value = queue.pop(0)
        assert 1 <= value <= sides
        return value

    return roll


@pytest.mark.parametrize(
    ("text", "values", "total", "breakdown"),
    [
        ("2d4", (1, 3), 4, "2d4 [1, 3] = 4"),
        ("d20+3", (17,), 20, "1d20 [17] + 3 = 20"),
        ("D20 - 3", (2,), -1, "1d20 [2] - 3 = -1"),
        ("4d6kh3", (6, 1, 4, 3), 13, "4d6kh3 [6, ~~1~~, 4, 3] = 13"),
        ("4d6k3", (6, 1, 4, 3), 13, "4d6kh3 [6, ~~1~~, 4, 3] = 13"),
        ("4d6dl1", (2, 2, 5, 5), 12, "4d6dl1 [~~2~~, 2, 5, 5] = 12"),
        ("4d6dh1", (2, 2, 5, 5), 9, "4d6dh1 [2, 2, 5, ~~5~~] = 9"),
        ("2d20kl1", (15, 9), 9, "2d20kl1 [~~15~~, 9] = 9"),
        ("2d20kh", (15, 9), 15, "2d20kh1 [15, ~~9~~] = 15"),
        ("d%", (100,), 100, "1d% [100] = 100"),
        ("3d8 + 1d6 - 2", (1, 7, 7, 5), 18, "3d8 [1, 7, 7] + 1d6 [5] - 2 = 18"),
        ("-d4+10", (3,), 7, "-1d4 [3] + 10 = 7"),
        ("2 + d6", (6,), 8, "2 + 1d6 [6] = 8"),
        ("1d6-1d6", (6, 6), 0, "1d6 [6] - 1d6 [6] = 0"),
        ("d1", (1,), 1, "1d1 [1] = 1"),
    ],
)
def test_examples(text: str, values: tuple[int, ...], total: int, breakdown: str) -> None:
    result = roll_dice(text, scripted(*values))
    assert result.total == total
    assert result.breakdown == breakdown


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("d0", "at least 1 side"),
        ("0d6", "rolls no dice"),
        (f"{MAX_DICE + 1}d6", "too many dice"),
        ("60d6+41d6", "too many dice"),
        (f"d{MAX_SIDES + 1}", "too many sides"),
        ("x" * (MAX_LENGTH + 1), "too long"),
        ("4d6kh5", "keeps more dice"),
        ("4d6kh0", "keeps no dice"),
        ("4d6dl4", "drops all"),
        ("3+4", "rolls no dice"),
        ("2d6 d", "unexpected 'd' at position 5"),
        ("d20+", "ends with a sign"),
        ("d", "ends too early"),
        ("2d", "ends too early"),
        ("d20 3", "expected + or -"),
        ("9999999d6", "too large"),
        ("d6\n", "'\\n'"),
        ("++d6", "unexpected '+'"),
        ("2d6**2", "unexpected '*'"),
    ],
)
def test_errors_are_clear_and_one_line(text: str, message: str) -> None:
    with pytest.raises(DiceExpressionError) as info:
        roll_dice(text, scripted())
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_injected_random_source() -> None:
    first = roll_dice("10d10+5", random.Random(42))
    second = roll_dice("10d10+5", random.Random(42))
    assert first == second
    assert first.total == sum(first.terms[0].rolls) + 5


def test_default_source_is_in_range() -> None:
    for _ in range(200):
        result = roll_dice("3d6")
        assert 3 <= result.total <= 18


def test_a_bad_source_is_caught() -> None:
    with pytest.raises(RuntimeError):
        roll_dice("d6", lambda sides: 7)


def test_limits_are_inclusive() -> None:
    result = roll_dice(f"{MAX_DICE}d{MAX_SIDES}", random.Random(1))
    assert len(result.terms[0].rolls) == MAX_DICE
    parse_dice("1" * 0 + "d6" + "+1" * 49)  # 100 characters exactly
    assert len("d6" + "+1" * 49) == MAX_LENGTH


def _check(text: str, rng: random.Random) -> None:
    try:
        result = roll_dice(text, rng)
    except DiceExpressionError as error:
        message = str(error)
        assert message and "\n" not in message and len(message) < 200
        return
    assert isinstance(result, DiceResult)
    assert isinstance(result.total, int)
    dice = [r for t in result.terms for r in t.rolls]
    assert 1 <= len(dice) <= MAX_DICE
    assert result.total == sum(t.subtotal for t in result.terms)
    assert "\n" not in result.breakdown
    # The normalized expression parses back to the same terms.
    assert parse_dice(result.expression).terms == tuple(t.term for t in result.terms)


ALPHABET = "0123456789dDkKhHlL%+- " + "xX*/()[]^!.,;kd" + "\t\n\x00é€🎲"


def _random_text(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.4:  # tokens that almost make sense
        parts = []
        wild = rng.random() < 0.5  # half the time, push on the limits and the syntax
        for _ in range(rng.randint(1, 4)):
            count = rng.choice(["", str(rng.randint(0, 150) if wild else rng.randint(1, 10))])
            sides = rng.choice([str(rng.randint(0, 1200) if wild else rng.randint(1, 100)), "%"])
            keep = ""
            if rng.random() < 0.4:
                keep = rng.choice(["kh", "kl", "dh", "dl", "k"] + (["d", "h"] if wild else []))
                keep += rng.choice(["", str(rng.randint(0, 12) if wild else 1)])
            number = str(rng.randint(0, 10**8) if wild else rng.randint(0, 20))
            parts.append(f"{count}d{sides}{keep}" if rng.random() < 0.7 else number)
        signs = ["+", "-", " + ", " - "] + (["", "*", "++"] if wild else [])
        return "".join(rng.choice(signs) + p for p in parts).lstrip("+ ")
    if shape < 0.8:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
    if shape < 0.95:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 120)))
    return "".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(0, 20)))


def test_fuzz_ten_thousand_random_expressions() -> None:
    rng = random.Random(20260521)
    valid = 0
    for _ in range(10_000):
        text = _random_text(rng)
        try:
            roll_dice(text, rng)
            valid += 1
        except DiceExpressionError:
            pass
        _check(text, rng)
    assert valid > 1000  # the generator does reach valid expressions


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=120))
def test_any_text_gets_a_result_or_a_clear_error(text: str) -> None:
    _check(text, random.Random(0))
