"""The facts a variant declares for the other packages (``variants/facts.py``), and the
rules settled in issue 25, item 9:

- whether a side can still win (RULES.md section 7), asked of every variant, on
  positions; the two rules that were wrong (Tquarchess's two-square King, King's Guard
  without pawns);
- Tquarchess: after ``roll``, an entry typed with another value is refused with a
  sentence naming the value rolled; the plain entry is accepted;
- Stone Garden: the Horse's promotion choices are among the readings;
- Tquarchess: the rule page's insufficient-material sentence and ``is_insufficient``
  read one table.
"""

from __future__ import annotations

import pytest

import variants
from variants.facts import Facts, SearchHints
from variants.stone_garden import HORSE_PROMOTIONS
from variants.tquarchess import TQUARC_MATERIAL

W, B = 0, 1


def test_every_variant_answers_who_can_still_win() -> None:
    for key in variants.names():
        rules = variants.rules(key)
        assert type(rules).can_still_win is not Facts.can_still_win, key
        assert isinstance(rules.search, SearchHints)
        start = variants.new_game(key, seed=1)
        assert rules.can_still_win(start.pos, W) and rules.can_still_win(start.pos, B), key


@pytest.mark.parametrize(
    ("key", "fen", "white_can_win"),
    [
        # A lone King: it captures the King in Guardener, promotes in Stone Garden.
        ("guardener", "***4***/*4k3*/*8*/10/10/10/10/*8*/*4K3*/***4*** b - - 0 1 - -", True),
        ("stone_garden", "4k3/8/8/8/8/8/8/4K3 b - - 0 1", True),
        # As FIDE, simplified: a lone King cannot win in the Jepps play phase.
        ("jepps_random", "4k3/8/8/8/8/8/3q4/4K3 b - - 0 1", False),
        ("jepps_random", "4k3/8/8/8/8/8/3q4/4KN2 b - - 0 1", True),
        # King's Guard: only a side with a pawn can win.
        ("kings_guard", "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", False),
        ("kings_guard", "4k3/8/8/8/8/8/3p4/Q3K3 b - - 0 1", False),
        ("kings_guard", "4k3/8/8/8/8/8/3p3P/4K3 b - - 0 1", True),
        # Tquarchess: a lone King with its two-square move ready (Tquarc captured, move
        # unused) can mate; with the move spent it cannot; a Tquarc to enter counts.
        ("tquarchess", "6rk/6n1/8/7K/8/8/8/8 b - - 0 1 t -/- - - 0", True),
        ("tquarchess", "6rk/6n1/8/7K/8/8/8/8 b - - 0 1 t -/- K - 0", False),
        ("tquarchess", "6rk/6n1/8/8/8/8/8/4K3 b - - 0 1 Tt e/- K - 0", True),
        ("tquarchess", "6rk/6n1/8/8/8/8/8/4K3 b - - 0 1 Tt -/- K - 0", False),
    ],
)
def test_who_can_still_win_on_positions(key: str, fen: str, white_can_win: bool) -> None:
    game = variants.from_fen(key, fen, seed=1)
    assert game.rules.can_still_win(game.pos, W) is white_can_win


def test_the_two_square_king_mates_in_issue_25s_position() -> None:
    game = variants.from_fen("tquarchess", "6rk/6n1/8/7K/8/8/8/8 w - - 0 1 t -/- - - 0", seed=1)
    assert "Kh6#" in game.legal_moves()
    game.play("Kh6")
    assert game.result is not None and (game.result.winner, game.result.reason) == (
        "white",
        "checkmate",
    )


# ----- Tquarchess: a typed entry value after ``roll`` ------------------------------------


def rolled_three() -> variants.Game:
    game = variants.new_game("tquarchess", rolls=[3])
    for move in ("Nf3", "Nf6", "g3", "g6", "Bg2", "Bg7"):
        game.play(move)
    assert game.play("roll") == "roll%3"
    return game


@pytest.mark.parametrize("typed", ["Rg1/T%5", "Rg1/T%4+", "O-O/Th1%2", "Rg1/T % 1"])
def test_an_entry_typed_with_another_value_is_refused(typed: str) -> None:
    game = rolled_three()
    before = game.record()
    with pytest.raises(variants.NotLegalHere) as refused:
        game.play(typed)
    message = str(refused.value)
    assert "shows 3" in message and "enters with 3" in message
    assert game.record() == before  # nothing changed
    refusal = variants.explain(game, typed)
    assert refusal is not None and refusal.cause == "entry-value"
    assert "shows 3" in refusal.message and "write" in refusal.message


@pytest.mark.parametrize("typed", ["Rg1/T", "Rg1/T%", "Rg1/T%3", "O-O/Th1", "O-O/Th1%3"])
def test_the_plain_entry_and_the_rolled_value_are_accepted(typed: str) -> None:
    game = rolled_three()
    assert variants.explain(game, typed) is None
    recorded = game.play(typed)
    assert recorded.endswith("%3")
    assert variants.replay(game.record()).history == game.history


def test_an_entry_value_without_a_roll_is_the_record_s_own() -> None:
    """Without ``roll`` the value is rolled by the entry: a record's ``Bg5/T%3`` replays."""
    game = variants.new_game("tquarchess", rolls=[2])
    game.play("Nf3")
    game.play("Nf6")
    assert game.play("Rg1/T%2") == "Rg1/T%2"


# ----- the rule pages ---------------------------------------------------------------------


def test_stone_garden_lists_the_horse_promotion_choices_among_its_readings() -> None:
    rules = variants.rules("stone_garden")
    (reading,) = [r for r in rules.readings if r.startswith("Horse promotion")]
    for kind in HORSE_PROMOTIONS:
        t = rules.types[kind]
        assert f"{t.name} ({t.letter})" in reading
    assert "never to a King" in reading
    assert reading in variants.rulebook_markdown("stone_garden")


def test_tquarchess_material_sentence_and_code_share_one_table() -> None:
    text = " ".join(variants.rulebook_markdown("tquarchess").split())
    for words, _ in TQUARC_MATERIAL:
        assert words in text or words[0].upper() + words[1:] in text
    rules = variants.rules("tquarchess")

    def insufficient(extras: str, placement: str = "4k3/8/8/8/8/8/8/4K3") -> bool:
        game = variants.from_fen("tquarchess", f"{placement} w - - 0 1 {extras}", seed=1)
        return rules.is_insufficient(game.pos)

    assert not insufficient("T e/- - - 0")  # a Tquarc that can still enter (at e1)
    assert insufficient("T -/- - - 0")  # its entry lapsed: not material
    assert not insufficient("- -/- - - 0", "4k3/8/8/8/8/8/8/3NK3")  # a Knight to resurrect it
    assert not insufficient("- -/- - - 0", "4k3/8/8/8/8/8/8/3TK3")  # one on the board
    assert insufficient("- -/- - - 0")  # captured, nothing to bring it back
