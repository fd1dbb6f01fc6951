"""Skill and luck (``engine.analysis``, issue 29): the accounting adds up, planted
blunders are found, and a roll that decides the game is a joker."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator

import pytest

import variants
from engine.analysis import Analysis, analyse, identity_gap
from engine.equity import Fit, fit_for

TOLERANCE = 1e-9


def d(sides: int, seed: int, first: tuple[int, ...] = ()) -> Iterator[int]:
    """Die values: ``first``, then seeded values 1..sides."""
    rng = random.Random(seed)
    return itertools.chain(first, (rng.randint(1, sides) for _ in range(10_000)))


# The dice actions each variant's games should contain, most wanted first.
PREFER = {
    "guardener": [r"\{T", r"^G@", r"^reroll$", r"^pass$"],
    "tquarchess": [r"^roll", r"/T", r"%"],
    "jepps_random": [r"^reroll$", r"^(Mirror|Reverse)$"],
    "kings_guard": [r"x"],
    "stone_garden": [r"x"],
}
SIDES = {"guardener": 4, "tquarchess": 4, "jepps_random": 6, "kings_guard": 6, "stone_garden": 6}
# Doubles first in Guardener, so that a reroll, a Double x2 and a teleport come early.
FIRST = {"guardener": (3, 3, 3, 3)}
PLIES = {"guardener": 10, "tquarchess": 16, "jepps_random": 24, "kings_guard": 16}


def biased_game(key: str, seed: int) -> variants.Game:
    """A seeded game whose players take the variant's dice actions when they can."""
    rng = random.Random(seed)
    game = variants.new_game(key, rolls=d(SIDES[key], seed, FIRST.get(key, ())))
    for _ in range(PLIES.get(key, 16)):
        if game.result is not None:
            break
        legal = game.legal_moves()
        for pattern in PREFER[key]:
            wanted = [m for m in legal if re.search(pattern, m)]
            if wanted and rng.random() < 0.8:
                game.play(rng.choice(wanted))
                break
        else:
            game.play(rng.choice(legal))
    return game


def assert_identity(a: Analysis) -> None:
    assert identity_gap(a) < TOLERANCE
    white, black = a.players
    for p, other in ((white, black), (black, white)):
        assert p.net_luck == pytest.approx(p.luck - other.luck, abs=TOLERANCE)
        assert p.net_skill == pytest.approx(other.error - p.error, abs=TOLERANCE)
        assert p.net_skill + p.net_luck == pytest.approx(p.final - p.initial, abs=TOLERANCE)
    # Every figure is a difference of neighbouring equities: the sums run the chain.
    luck = sum(t.luck if t.roller in ("white", None) else -t.luck for t in a.turns)
    error = sum(t.error if t.side == "white" else -t.error for t in a.turns if t.side)
    assert luck - error == pytest.approx(a.final - a.initial, abs=TOLERANCE)
    for t in a.turns:
        assert t.error >= 0.0
        assert 0.0 <= t.white <= 1.0
        if t.roller is None:
            assert t.luck == 0.0


@pytest.mark.parametrize(
    "key", ["guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random"]
)
def test_error_plus_luck_is_the_change_in_equity(key: str) -> None:
    game = biased_game(key, seed=7)
    a = analyse(game.record(), depth=1)
    assert len(a.turns) == len(game.history) + 1
    assert_identity(a)
    assert [t.action for t in a.turns[:-1]] == game.history
    if key in ("kings_guard", "stone_garden"):
        assert all(t.luck == 0.0 and t.roller is None for t in a.turns)
    else:
        assert any(t.roller is not None and t.rolled for t in a.turns)


def test_the_dice_actions_are_covered() -> None:
    """Reroll, teleport and resurrection (Guardener), the Tquarc's roll and entry,
    and the Jepps Random setup are in the seeded games analysed above."""
    texts = {key: " ".join(biased_game(key, 7).history) for key in PREFER}
    assert "reroll" in texts["guardener"] and "{T" in texts["guardener"]
    assert "roll%" in texts["tquarchess"] and "/T%" in texts["tquarchess"]
    assert "reroll" in texts["jepps_random"]


def test_pass_and_resurrection_in_guardener() -> None:
    """White passes (every King move is onto an attacked square), resurrects its
    Guardener on a Double x2, then teleports: the identity holds throughout."""
    fen = "***4***/*rr1k4*/*8*/10/10/10/10/*8*/*K7*/***4*** w - - 0 30 - -"
    rolls = [1, 2, 1, 3, 3, 3, 3, 3, 1, 3, 4, 4, 4, 4, 2, 3, 1, 1]
    game = variants.from_fen("guardener", fen, rolls=rolls)
    for text in ["pass", None, "reroll", "G@z4 {T3}", None, "reroll", "{T4}", None]:
        legal = game.legal_moves()
        if text is None:
            game.play(legal[0])
        else:
            game.play(next(m for m in legal if m == text or m.endswith(text)))
    record = game.record()
    assert "pass" in record and "G@z4" in record and "{T4}" in record
    a = analyse(record)
    assert_identity(a)
    rolls_white = [t for t in a.turns if t.roller == "white"]
    # The first roll, two doubles and their rerolls, and the roll after Black's last move.
    assert len(rolls_white) == 6


def test_jepps_random_play_phase_has_no_luck() -> None:
    game = biased_game("jepps_random", seed=3)
    a = analyse(game.record(), depth=1)
    assert_identity(a)
    replay = variants.new_game("jepps_random", rolls=d(6, 3))
    first_play = None
    for i, text in enumerate(game.history):
        if first_play is None and replay.pos.extra["phase"] == "play":
            first_play = i
        replay.play(text)
    assert first_play is not None, "the game should reach the play phase"
    assert any(t.luck != 0.0 for t in a.turns[:first_play])
    assert all(t.luck == 0.0 and t.roller is None for t in a.turns[first_play + 1 :])


# ----- planted blunders ------------------------------------------------------------


def test_a_hung_queen_is_the_biggest_blunder_in_tquarchess() -> None:
    game = variants.new_game("tquarchess", rolls=[])
    for text in ["e4", "d6", "Qg4", "Bxg4"]:
        game.play(text)
    a = analyse(game.record())
    assert_identity(a)
    blunder = a.turns[2]
    assert blunder.action == "Qg4"
    assert blunder.label == "??"
    assert blunder.error == max(t.error for t in a.turns)
    assert a.player("white").blunders >= 1


def test_a_king_left_capturable_is_the_biggest_blunder_in_guardener() -> None:
    # White: Ke1, Rh1, pawns a2 b2 c2; Black: Kd8 and a Knight on c4, which reaches d2.
    fen = "***4***/*3k4*/*8*/10/10/3n6/10/*PPP5*/*4K2R*/***4*** w - - 0 30 - -"
    game = variants.from_fen("guardener", fen, rolls=[1, 3, 2, 3])
    game.play("Kd2")
    game.play("Nxd2")
    assert game.result is not None and game.result.winner == "black"
    a = analyse(game.record())
    assert_identity(a)
    blunder = a.turns[0]
    assert blunder.action == "Kd2" and blunder.label == "??"
    assert blunder.error == max(t.error for t in a.turns)
    assert blunder.best is not None


# ----- jokers ----------------------------------------------------------------------

# White: Ka1 boxed in by its own pawns a2 b2 and Knight b1; a Knight on f7 reaches the
# Black King on h8. Black: a Knight on c2 and a Guardener on c1 both reach a1. A 2 (or
# a double) lets White capture the King at once; any other roll leaves White's King
# to Black, whose next roll takes it unless it is 3 and 4.
JOKER_FEN = "***4***/*7k*/*5N2*/10/10/10/10/*PPn5*/*KNg5*/***4*** w - - 0 30 - -"


def first_roll(dice: tuple[int, int]) -> Analysis:
    game = variants.from_fen("guardener", JOKER_FEN, rolls=[*dice, 3, 4, 1, 1])
    legal = game.legal_moves()
    wins = [m for m in legal if m == "Nxh8"]
    game.play(wins[0] if wins else legal[0])
    return analyse(game.record())


def test_the_roll_that_allows_the_only_win_is_a_joker() -> None:
    a = first_roll((2, 3))
    roll = a.turns[0]
    assert roll.roller == "white" and roll.action == "Nxh8"
    assert roll.after == 1.0
    assert roll.luck >= fit_for("guardener").joker
    assert roll.luck_label == "joker"
    assert a.player("white").jokers == 1
    assert_identity(a)


def test_the_roll_that_forbids_it_is_an_anti_joker() -> None:
    a = first_roll((1, 3))
    roll = a.turns[0]
    assert roll.roller == "white" and "Nxh8" not in (roll.action or "")
    assert roll.luck <= -fit_for("guardener").joker
    assert roll.luck_label == "anti-joker"
    assert a.player("white").anti_jokers == 1
    # The same expectation before the dice, whatever they showed, but for the bias the
    # module describes: where the action played after the roll turned out better than
    # the search's value of the position, the roll that happened counts that better
    # value in the expectation, with its probability (1 and 3: 2 of 16) as its weight.
    other = first_roll((2, 3)).turns[0].before  # there White takes the King: no bias
    assert roll.before >= other - 1e-12
    assert roll.before - other <= 2 / 16 * roll.after  # the better value, at most 'after'
    assert_identity(a)


def test_equity_curve_and_labels() -> None:
    fit = fit_for("guardener")
    assert fit.equity(1.0, True) == 1.0 and fit.equity(-1.0, False) == 0.0
    values = [-0.9, -0.5, 0.0, 0.5, 0.9]
    eqs = [fit.equity(v, True) for v in values]
    assert eqs == sorted(eqs) and 0.0 < eqs[0] < eqs[-1] < 1.0
    i, m, b = fit.labels
    assert fit.label(b) == "??" and fit.label(m) == "?" and fit.label(i) == "?!"
    assert fit.label(i / 2) == ""
    assert fit.luck_label(0.31) == "joker" and fit.luck_label(-0.31) == "anti-joker"


def test_whites_edge_in_the_curve_is_not_booked_as_errors() -> None:
    # King's Guard has no dice: every action has one outcome. A curve with a large
    # edge of White's must read each position the same from both sides, so that the
    # search's own choices cost only the horizon's noise, not sigmoid(w) - sigmoid(-w)
    # = 0.46 per action (what the edge gave booked to the side to act: on move, a
    # position was worth more than to the side that made it).
    game = biased_game("kings_guard", seed=3)
    plain = analyse(game.record(), 1, fit=Fit(slope=3.0, depth=1))
    edged = analyse(game.record(), 1, fit=Fit(slope=3.0, white_edge=1.0, depth=1))
    assert_identity(edged)
    for a, b in zip(plain.turns, edged.turns, strict=True):
        assert (a.side, a.choice, a.best) == (b.side, b.choice, b.best)
    own = [t.error for t in edged.turns if t.choice and t.best is None]
    assert own and max(own) < 0.2
    assert edged.initial > plain.initial  # the edge is White's, from the first position


def test_a_record_that_does_not_replay_is_refused() -> None:
    with pytest.raises(ValueError):
        analyse('[Variant "tquarchess"]\n\n1. e5\n')
