"""The search on real positions: mates in FIDE-like positions (checked against
python-chess, the test-only oracle), King captures, winning captures in every
variant. The clock is frozen: the search goes as deep as asked, or until it
finds a forced win, and the results do not depend on the machine."""

from __future__ import annotations

import chess
import pytest

import engine
import variants
from engine.domain import VariantDomain
from engine.search import MATE_BOUND, Search, Settings
from variants.tquarchess import FIDE_EXTRAS


def frozen() -> float:
    return 0.0


def best(game: variants.Game, depth: int, chance: str = "star2") -> tuple[str, float]:
    """The action a depth-limited search chooses, and its value."""
    dom = VariantDomain(game.variant)
    search = Search(dom, Settings(max_depth=depth, chance=chance), clock=frozen)
    report = search.run(dom.root(game))
    return dict(game.legal_actions())[report.move], report.value


def fide(key: str, fen: str) -> variants.Game:
    """A FIDE position in Tquarchess (no Tquarc can ever enter) or Jepps Random
    (play phase, no King may relocate)."""
    extra = FIDE_EXTRAS if key == "tquarchess" else "-"
    return variants.from_fen(key, f"{fen} {extra}", seed=0)


def mates_in(fen: str, n: int) -> set[str]:
    """python-chess: the first moves (UCI) that force mate in at most ``n``."""

    def forced(board: chess.Board, moves: int) -> bool:
        for m in list(board.legal_moves):
            board.push(m)
            ok = board.is_checkmate() or (
                moves > 1
                and not board.is_game_over()
                and all(reply_forced(board, r, moves - 1) for r in list(board.legal_moves))
            )
            board.pop()
            if ok:
                return True
        return False

    def reply_forced(board: chess.Board, reply: chess.Move, moves: int) -> bool:
        board.push(reply)
        ok = forced(board, moves)
        board.pop()
        return ok

    board = chess.Board(fen)
    out = set()
    for m in list(board.legal_moves):
        board.push(m)
        if board.is_checkmate() or (
            n > 1
            and not board.is_game_over()
            and all(reply_forced(board, r, n - 1) for r in list(board.legal_moves))
        ):
            out.add(m.uci())
        board.pop()
    return out


def uci(game: variants.Game, action: str) -> str:
    move = dict((t, m) for m, t in game.legal_actions())[action]
    names = game.rules.geometry.names
    return names[move.frm] + names[move.to] + (move.promo.lower() if move.promo else "")


MATE_IN_1 = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
MATE_IN_2 = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1"  # Rb7 and Ra8#


@pytest.mark.parametrize("key", ["tquarchess", "jepps_random"])
@pytest.mark.parametrize(("fen", "n"), [(MATE_IN_1, 1), (MATE_IN_2, 2)])
def test_mates_in_fide_like_positions(key: str, fen: str, n: int) -> None:
    solutions = mates_in(fen, n)
    assert solutions and not (n == 2 and mates_in(fen, 1))
    game = fide(key, fen)
    action, value = best(game, 2 * n - 1)
    assert uci(game, action) in solutions
    assert value > MATE_BOUND
    g = game.copy()
    g.play(action)
    if n == 1:
        assert g.result is not None and g.result.reason == "checkmate"
        return
    # Against every defence, the search finds the mate that follows.
    for reply in g.legal_moves():
        h = g.copy()
        h.play(reply)
        follow, _ = best(h, 1)
        h.play(follow)
        assert h.result is not None and h.result.reason == "checkmate"


@pytest.mark.parametrize("key", ["tquarchess", "jepps_random"])
def test_mate_in_2_found_by_level_3_with_a_frozen_clock(key: str) -> None:
    """choose_for_game stops deepening once it has proved the win."""
    game = fide(key, MATE_IN_2)
    choice = engine.choose_for_game(game, 3, clock=frozen)
    assert uci(game, choice.action) in mates_in(MATE_IN_2, 2)
    assert choice.score > MATE_BOUND and choice.depth == 3


def guardener(placement: str, dice: str) -> variants.Game:
    return variants.from_fen("guardener", f"{placement} w - - 0 1 {dice} -", seed=0)


# Black King e8; a White Knight on d6 attacks it; White's dice [2 3] allow Knights.
KNIGHT_TAKES_KING = "***4***/*4k3*/*8*/4N5/10/10/10/*8*/*4K3*/***4***"


def test_guardener_king_capture() -> None:
    game = guardener(KNIGHT_TAKES_KING, "23")
    action, value = best(game, 1)
    assert action == "Nxe8" and value > MATE_BOUND
    game.play(action)
    assert game.result is not None and game.result.winner == "white"


def test_guardener_dice_decide_whether_the_king_falls() -> None:
    # [1 3]: no Knight may move, so no King capture; the search must not claim one.
    game = guardener(KNIGHT_TAKES_KING, "13")
    action, value = best(game, 1)
    assert "xe8" not in action and value < MATE_BOUND


def test_kings_guard_king_capture_with_an_assist() -> None:
    # The Rook on e1 attacks e5, so the d4 pawn may take the King there.
    game = variants.from_fen("kings_guard", "8/p7/8/4k3/3P4/8/8/4R1K1 w - - 0 1", seed=0)
    action, value = best(game, 1)
    assert action == "dxe5" and value > MATE_BOUND


def test_kings_guard_no_capture_without_an_assist() -> None:
    game = variants.from_fen("kings_guard", "8/p7/8/4k3/3P4/8/8/5RK1 w - - 0 1", seed=0)
    action, value = best(game, 1)
    assert action != "dxe5" and value < MATE_BOUND


WINNING_CAPTURES = [
    ("guardener", None, "Rxa5"),
    ("tquarchess", "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1 " + FIDE_EXTRAS, "Rxd5"),
    ("kings_guard", "4k3/p7/8/3q4/4P3/8/8/3RK3 w - - 0 1", "exd5"),
    ("stone_garden", "4k3/8/3p4/8/3R4/8/8/4K3 w - - 0 1", "Rxd6"),
    ("jepps_random", "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1 -", "Rxd5"),
]


@pytest.mark.parametrize(("key", "fen", "expected"), WINNING_CAPTURES)
@pytest.mark.parametrize("chance", ["expectimax", "star1", "star2"])
def test_winning_capture(key: str, fen: str | None, expected: str, chance: str) -> None:
    if key == "guardener":
        # A free Queen on a5 for the Rook on a1, with a 4 on the dice.
        game = guardener("***4***/*4k3*/*8*/10/1q8/10/10/*8*/*R3K3*/***4***", "41")
    else:
        game = variants.from_fen(key, fen, seed=0)
    assert expected in game.legal_moves()
    action, value = best(game, 2, chance)
    assert action == expected
    assert value > 0.3


def test_values_agree_across_chance_methods() -> None:
    """Star1 and Star2 prune (they visit fewer nodes), never change the value, on a dice
    position: Guardener with pieces hanging on both sides and [4 1] showing. (A crowded
    middlegame makes the same point in minutes instead of a second.)"""
    game = guardener("***4***/*3qk3*/*2pp4*/2n7/1q8/4N5/3B6/*2PP4*/*R3K3*/***4***", "41")
    reports = {}
    for method in ("expectimax", "star1", "star2"):
        dom = VariantDomain(game.variant)
        search = Search(dom, Settings(max_depth=1, chance=method), clock=frozen)
        reports[method] = search.run(dom.root(game))
    assert len({round(r.value, 9) for r in reports.values()}) == 1, reports
    assert len({r.move for r in reports.values()}) == 1, reports
    assert reports["star1"].nodes < reports["expectimax"].nodes
    assert reports["star2"].nodes < reports["expectimax"].nodes


@pytest.mark.parametrize("key", ["guardener", "jepps_random"])
def test_dice_order_never_changes_the_legal_actions(key: str) -> None:
    """The assumption behind merging children that differ only in dice order."""
    rules = variants.rules(key)
    seen = 0
    for seed, plies in enumerate((0, 2, 5, 7, 9, 11, 14, 20)):
        game = variants.random_playout(key, plies, seed)
        pos = game.pos
        if game.result is not None or pos.dice is None or len(pos.dice) != 2:
            continue
        swapped = pos.copy()
        swapped.dice = (pos.dice[1], pos.dice[0])
        assert set(rules.legal_moves(pos)) == set(rules.legal_moves(swapped))
        seen += 1
    assert seen >= 4


def test_stone_garden_a_check_that_mates_is_seen_at_the_horizon() -> None:
    """The loss to random (selfplay seed 214, level 3 White at 0.1 s, depth 2): after
    11. Hcd4?? Black mates with 11... Hgf3+ 12. Ixf3 (forced) Hxf3#. Quiescence used
    to stand pat in check, so at depth 2 the check looked harmless and Hcd4 scored
    +0.85. In check there is now no standing pat: every evasion is searched."""
    moves = (
        "Rb3 Hed5 Hde4 Hfe5 Hf6+ Kf7 Hxg8=P Kf6 Hhg4+ Ke7 Hh6 Hc3 Rxc3 Ke6 Og4 Hg5 Ie4 Kf6 Od2 Ha5"
    ).split()
    game = variants.new_game("stone_garden", seed=214)
    for m in moves:
        game.play(m)
    dom = VariantDomain("stone_garden")
    search = Search(dom, Settings(max_depth=2, qdepth=4), clock=frozen)
    root = dom.root(game)
    report = search.run(root)
    texts = dict(game.legal_actions())
    assert texts[report.move] != "Hcd4" and report.value > 0.5
    blunder = next(m for m, t in texts.items() if t == "Hcd4")
    assert search.after(root, blunder, 1, -2.0, 2.0, 0) < -MATE_BOUND
