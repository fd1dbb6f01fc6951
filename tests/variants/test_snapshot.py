"""Snapshots (contract C12): a restored game goes on exactly as the original.

Random games in every variant, snapshots at random plies, each restored with a
fresh dice source of the same stream; the original and every restored copy are
then driven with the same texts and compared after every ply: legal actions,
position, repetition keys, result, lost pieces, dice showing and drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import variants
from variants import DiceSource, Game, ScriptedDice, SeededDice, VerifiableDice
from variants.snapshot import decode_value, encode_value

KEYS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")
GAMES = 3
PLIES = 70
SNAPSHOTS = 3


def _sources(key: str, kind: str, n: int) -> tuple[DiceSource, Callable[[], DiceSource]]:
    """(the original's dice, a maker of fresh dice of the same stream)."""
    seed = f"seed-{n}"
    if kind == "seeded":
        return SeededDice(seed), lambda: SeededDice(seed)
    if kind == "verifiable":
        return VerifiableDice(seed, n), lambda: VerifiableDice(seed, n)
    # As the service rebuilds a game: stored rolls first, then the verifiable stream.
    stream = VerifiableDice(seed, n)
    first = [stream.roll(6 if key == "jepps_random" else 4) for _ in range(5)]
    return (
        ScriptedDice(first, then=VerifiableDice(seed, n, start=len(first))),
        lambda: ScriptedDice([], then=VerifiableDice(seed, n)),
    )


def _choose(game: Game, rng: random.Random) -> str:
    """A random legal action, preferring to undo the mover's last move (repetitions)."""
    pairs = game.legal_actions()
    mover = game.pos.turn
    if len(game.moves) >= 2 and rng.random() < 0.7:
        mine = game.moves[-2]
        back = [t for m, t in pairs if m.frm == mine.to and m.to == mine.frm and m.frm >= 0]
        if back and mover is not None:
            return back[0]
    return rng.choice(pairs)[1]


def _same(copy: Game, original: Game, rolls_before: int) -> None:
    assert copy.fen() == original.fen()
    assert copy.turn == original.turn
    assert copy.dice == original.dice
    assert copy.result == original.result
    assert copy.keys == original.keys
    assert copy.captured == original.captured
    assert copy.last_move == original.last_move
    assert copy.pos.extra == original.pos.extra
    assert copy.pos.kings == original.pos.kings
    assert copy.rolls == original.rolls[rolls_before:]
    assert copy.legal_moves() == original.legal_moves()
    assert copy.history[-1:] == original.history[-1:]
    assert copy.moves[-1:] == original.moves[-1:]
    # The same state writes the same bytes (all but the record's length and tail).
    a, b = decode_value(copy.snapshot()[4:]), decode_value(original.snapshot()[4:])
    assert a[:21] == b[:21]


@pytest.mark.parametrize("kind", ["seeded", "verifiable", "scripted"])
@pytest.mark.parametrize("key", KEYS)
def test_restored_games_go_on_like_the_original(key: str, kind: str) -> None:
    rng = random.Random(f"{key}:{kind}")
    repeated = 0
    for n in range(GAMES):
        dice, fresh = _sources(key, kind, n)
        original = variants.new_game(key, dice=dice)
        at = set(rng.sample(range(PLIES), SNAPSHOTS))
        copies: list[tuple[Game, int]] = []
        for ply in range(PLIES):
            # Random plies, and the first ply whose position occurred before.
            again = original.keys.count(original.keys[-1]) >= 2
            if ply in at or (again and not repeated):
                data = original.snapshot()
                assert data == original.snapshot()  # deterministic
                assert data[:3] == b"CGS"
                copies.append((variants.restore(data, fresh()), len(original.rolls)))
                repeated += again
            for copy, before in copies:
                _same(copy, original, before)
            if original.result is not None:
                break
            text = _choose(original, rng)
            recorded = original.play(text)
            for copy, _ in copies:
                assert copy.play(text) == recorded
        for copy, before in copies:
            _same(copy, original, before)
    if key != "guardener":  # Guardener has no repetition rule (its keys still restore)
        assert repeated, "no snapshot was taken in a position that had repeated"


def test_a_restored_game_completes_a_threefold_repetition() -> None:
    game = variants.new_game("kings_guard", seed=1)
    for text in ("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"):
        game.play(text)
    copy = variants.restore(game.snapshot(), SeededDice(1))
    assert game.play("Ng8") == copy.play("Ng8")
    assert game.result is not None and "repetition" in game.result.reason
    assert copy.result == game.result


def test_the_dice_continue_the_verifiable_stream() -> None:
    game = variants.new_game("tquarchess", dice=VerifiableDice("s", 7))
    rng = random.Random(3)
    for _ in range(9):
        game.play(rng.choice(game.legal_moves()))
    copy = variants.restore(game.snapshot(), VerifiableDice("s", 7))
    assert copy.dice_source.count == game.dice_source.count > 0
    for _ in range(12):
        text = rng.choice(game.legal_moves())
        assert copy.play(text) == game.play(text)
    assert copy.rolls == game.rolls[-len(copy.rolls) :] and copy.rolls


def test_seeded_dice_without_their_state_refuse_to_skip() -> None:
    with pytest.raises(ValueError, match="seeded dice"):
        SeededDice(1).resume(5, None)


def test_bad_snapshots_are_refused_in_one_line() -> None:
    data = variants.new_game("guardener", seed=1).snapshot()
    for bad in (b"", b"hello", data[:-3], data[:3] + bytes([99]) + data[4:], data + b"x"):
        with pytest.raises(ValueError) as err:
            variants.restore(bad, SeededDice(1))
        assert "\n" not in str(err.value)


def test_the_codec_round_trips_plain_values() -> None:
    values = [
        None,
        True,
        False,
        0,
        -1,
        2**70,
        -(2**64),
        "é",
        b"\x00\x01",
        1.5,
        (1, (2, "x")),
        [1, 2],
        frozenset({3, 1, 2}),
        {"b": (True, False), "a": frozenset({"d4", "e5"})},
    ]
    for v in values:
        back = decode_value(encode_value(v))
        assert back == v and type(back) is type(v)
    # Sets and dicts write the same bytes whatever their insertion order.
    assert encode_value({"a": 1, "b": 2}) == encode_value({"b": 2, "a": 1})
    assert encode_value(frozenset(range(50))) == encode_value(frozenset(reversed(range(50))))
