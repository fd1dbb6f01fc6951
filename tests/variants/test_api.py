"""The public engine API of ARCHITECTURE.md, as outside checks call it."""

from __future__ import annotations

import pytest

import variants
from variants.dice import DiceError

KEYS = ("guardener", "tquarchess", "kings_guard", "stone_garden", "jepps_random")
EIGHT_BY_EIGHT = ("tquarchess", "kings_guard", "jepps_random")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def played(key: str, seed: int = 1, plies: int = 10) -> variants.Game:
    """A game some seeded random plies in."""
    return variants.random_playout(key, plies, seed)


def test_names() -> None:
    assert variants.names() == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_new_game_basics(key: str) -> None:
    g = variants.new_game(key, seed=1)
    assert g.variant == key
    assert g.turn == "white"
    assert g.result is None
    moves = g.legal_moves()
    assert moves and all(isinstance(m, str) and m for m in moves)
    assert g.dice is None or (isinstance(g.dice, tuple) and all(isinstance(v, int) for v in g.dice))
    assert isinstance(g.fen(), str) and isinstance(g.record(), str)


def test_unknown_variant_names_the_variants() -> None:
    with pytest.raises(ValueError, match="tquarchess"):
        variants.new_game("fischer", seed=1)


def test_dice_show_for_the_side_to_act() -> None:
    assert variants.new_game("tquarchess", seed=1).dice is None
    assert variants.new_game("kings_guard", seed=1).dice is None
    jepps = variants.new_game("jepps_random", rolls=[3, 5])
    assert jepps.dice == (3, 5)
    tq = variants.new_game("tquarchess", rolls=[4])
    tq.play("roll")
    assert tq.dice == (4,)


def test_seeded_and_scripted_games_are_deterministic() -> None:
    for key in KEYS:
        assert played(key, seed=7).record() == played(key, seed=7).record()
    a = variants.new_game("jepps_random", rolls=[2, 4, 3, 5])
    b = variants.new_game("jepps_random", rolls=[2, 4, 3, 5])
    assert a.play("Na1") == b.play("Na1") and a.dice == b.dice == (3, 5)


def test_scripted_dice_that_run_out_leave_the_game_unchanged() -> None:
    g = variants.new_game("tquarchess", rolls=[])
    before = (g.fen(), g.record(), g.legal_moves())
    with pytest.raises(DiceError):
        g.play("roll")
    assert (g.fen(), g.record(), g.legal_moves()) == before
    assert isinstance(DiceError("x"), ValueError)


# ----- play and its errors ------------------------------------------------------------


def test_play_returns_the_canonical_text() -> None:
    g = variants.from_fen("tquarchess", START, seed=1)
    assert g.play("e2e4") == "e4"
    assert g.play("e7-e5") == "e5"
    assert g.play("g1f3") == "Nf3"  # not the gating Nf3/T%
    assert g.play("Nc6!?") == "Nc6"


def test_errors_are_split_by_cause_and_are_value_errors() -> None:
    for cls in (
        variants.BadNotation,
        variants.NotLegalHere,
        variants.AmbiguousMove,
        variants.GameOver,
    ):
        assert issubclass(cls, variants.IllegalMove)
    assert issubclass(variants.IllegalMove, ValueError)

    g = variants.from_fen("tquarchess", START, seed=1)
    with pytest.raises(variants.BadNotation) as bad:
        g.play("hello there")
    with pytest.raises(variants.BadNotation):
        g.play("")
    with pytest.raises(variants.NotLegalHere) as illegal:
        g.play("e5")
    with pytest.raises(variants.NotLegalHere):
        g.play("Qh5")
    for err in (bad.value, illegal.value):
        assert "legal now:" in str(err) and "Nf3" in str(err) and "e4" in str(err)

    two_knights = variants.from_fen("tquarchess", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1 Tt -/- - - 0")
    with pytest.raises(variants.AmbiguousMove) as ambiguous:
        two_knights.play("Nd2")
    assert "Nbd2" in str(ambiguous.value) and "Nfd2" in str(ambiguous.value)
    assert two_knights.play("Nbd2") == "Nbd2"


def test_non_text_is_an_illegal_move() -> None:
    g = variants.new_game("kings_guard", seed=1)
    with pytest.raises(variants.IllegalMove):
        g.play(None)  # type: ignore[arg-type]


def test_a_finished_game_refuses_play() -> None:
    g = variants.from_fen("tquarchess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 Tt -/- - - 0")
    assert g.result is not None and g.result.winner is None and g.result.reason == "stalemate"
    assert g.legal_moves() == []
    with pytest.raises(variants.GameOver):
        g.play("Kg8")
    mate = variants.from_fen("tquarchess", START, seed=1)
    for m in ("f3", "e5", "g4", "Qh4#"):
        mate.play(m)
    assert mate.result is not None
    assert (mate.result.winner, mate.result.reason) == ("black", "checkmate")
    assert mate.record().rstrip().endswith("0-1")


def test_a_rejected_action_leaves_the_game_unchanged() -> None:
    for key in KEYS:
        g = played(key)
        before = (g.fen(), g.record(), g.legal_moves(), g.dice, g.turn)
        for junk in ("Zz99", "e9", "Kxx1", "reroll now"):
            with pytest.raises(variants.IllegalMove):
                g.play(junk)
        assert (g.fen(), g.record(), g.legal_moves(), g.dice, g.turn) == before


# ----- copy, record, replay, FEN, perft ---------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_copy_is_independent(key: str) -> None:
    g = played(key)
    before = (g.fen(), g.record(), g.legal_moves())
    other = g.copy()
    other.play(other.legal_moves()[0])
    assert (g.fen(), g.record(), g.legal_moves()) == before
    # and the other way round: the copy does not follow the original
    snapshot = (other.fen(), other.record())
    g.play(g.legal_moves()[-1])
    assert (other.fen(), other.record()) == snapshot


@pytest.mark.parametrize("key", KEYS)
def test_record_replays_to_the_same_game(key: str) -> None:
    g = played(key, seed=3, plies=25)
    record = g.record()
    assert f'[Variant "{key}"]' in record
    again = variants.replay(record)
    assert again.fen() == g.fen()
    assert again.record() == record
    assert again.legal_moves() == g.legal_moves()
    assert again.dice == g.dice


def test_a_tampered_record_does_not_replay() -> None:
    g = variants.new_game("tquarchess", rolls=[3])
    for m in ("d4", "d5", "Bg5/T"):
        g.play(m)
    with pytest.raises(ValueError):
        variants.replay(g.record().replace("Bg5/T%3", "Bg5/T%3 Qxd5"))
    with pytest.raises(ValueError):
        variants.replay("1. e4 e5")


@pytest.mark.parametrize("key", EIGHT_BY_EIGHT)
def test_from_fen_accepts_standard_fen(key: str) -> None:
    g = variants.from_fen(key, START, seed=1)
    assert g.fen().split()[0] == START.split()[0]
    assert g.turn == "white"
    black = variants.from_fen(key, START.replace(" w ", " b "), seed=1)
    assert black.turn == "black"


@pytest.mark.parametrize("key", KEYS)
def test_fen_round_trips(key: str) -> None:
    g = played(key, seed=5, plies=30 if key != "jepps_random" else 60)
    if key == "jepps_random" and g.fen().endswith("setup"):
        pytest.skip("a Jepps Random setup is replayed, not written as FEN")
    again = variants.from_fen(key, g.fen(), seed=1)
    assert again.fen() == g.fen()


def test_bad_fen_is_a_value_error() -> None:
    for key in EIGHT_BY_EIGHT:
        for bad in (
            "",
            "rnbqkbnr/pppppppp/8/8 w - - 0 1",
            "xnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
        ):
            with pytest.raises(ValueError):
                variants.from_fen(key, bad, seed=1)


@pytest.mark.parametrize("key", KEYS)
def test_perft_one_counts_the_legal_actions(key: str) -> None:
    g = played(key, seed=2, plies=6)
    assert variants.perft(g, 1) == len(g.legal_moves())
    assert variants.perft(g, 0) == 1


def test_perft_two_from_the_start() -> None:
    assert variants.perft(variants.from_fen("tquarchess", f"{START} Tt -/- - - 0"), 2) == 400


def test_coordinates_and_long_forms_never_imply_an_entry() -> None:
    g = variants.from_fen("tquarchess", START, rolls=[2])
    assert g.copy().play("Ngf3") == "Nf3"
    assert g.play("Nf3/T") == "Nf3/T%2"
