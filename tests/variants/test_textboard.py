"""``variants.text_board``: the console's board, for all five geometries."""

from __future__ import annotations

import pytest

import variants
from variants import text_board


def board_lines(text: str) -> list[str]:
    """The board part: the header, the ranks and the footer (up to the blank line)."""
    return text.split("\n\n", 1)[0].splitlines()


GUARDENER_START = """\
  w  a  b  c  d  e  f  g  h  z
9          :  g2 g2 .           9   T4 (c9-f9)
8    r  n  b  q  k  b  n  r     8
7    p  p  p  p  p  p  p  p     7
6 :  .  :  .  :  .  :  .  :  .  6
5 .  :  .  :  .  :  .  :  .  :  5
4 :  .  :  .  :  .  :  .  :  .  4
3 .  :  .  :  .  :  .  :  .  :  3
2    P  P  P  P  P  P  P  P     2
1    R  N  B  Q  K  B  N  R     1
0          .  G2 G2 :           0   T1 (c0-f0)
  w  a  b  c  d  e  f  g  h  z
  T2                         T3"""


def test_guardener_terraces_holes_and_the_double_start() -> None:
    g = variants.new_game("guardener", rolls=[2, 3])
    text = text_board(g)
    assert board_lines(text) == GUARDENER_START.splitlines()
    assert "G2: the Guardener still on its double start, shown on both of its squares." in text
    assert "T2 is the w-file (w3-w6)" in text and "T1 (c0-f0)" in text


def test_guardener_from_blacks_side() -> None:
    g = variants.new_game("guardener", rolls=[2, 3])
    lines = board_lines(text_board(g, orientation="black"))
    assert lines[0] == "  z  h  g  f  e  d  c  b  a  w"
    assert lines[1] == "0          :  G2 G2 .           0   T1 (c0-f0)"
    assert lines[2] == "1    R  N  B  K  Q  B  N  R     1"
    assert lines[-1] == "  T3                         T2"


def test_tquarchess_values_and_tquads() -> None:
    fen = "rnbqkbnr/p1pppppp/3t(1)4/8/8/5T(3)2/PPPPPPPP/RNBQKBNR w KQkq - 0 1 - -/- - b 0"
    text = text_board(variants.from_fen("tquarchess", fen))
    lines = board_lines(text)
    assert lines[0] == "  a  b  c  d  e  f  g  h"
    assert lines[3] == "6 .  :  .  t1 .  :  .  :  6"
    assert lines[6] == "3 :  .  :  .  :  T3 :  .  3"
    assert "T1: a Tquarc and the die value it shows (1: it would teleport to Tquad T1)." in text
    # the Tquads are T1-T4, as in the picture; Q is the Queen's letter (issue 27)
    assert "Tquads: T1 e2-g4; T2 b2-d4; T3 b5-d7; T4 e5-g7." in text
    assert not any(f"Q{n}" in text for n in range(1, 5))


KINGS_GUARD_START = """\
  a  b  c  d  e  f  g  h
8 r  n  b  q  k  b  n  r  8
7 p  p  p  p  p  p  p  p  7
6 .  :  .  :  .  :  .  :  6
5 :  .  :  .  :  .  :  .  5
4 .  :  .  :  .  :  .  :  4
3 :  .  :  .  :  .  :  .  3
2 P  P  P  P  P  P  P  P  2
1 R  N  B  Q  K  B  N  R  1
  a  b  c  d  e  f  g  h"""


def test_kings_guard_plain_eight_by_eight() -> None:
    g = variants.new_game("kings_guard", seed=1)
    text = text_board(g)
    assert board_lines(text) == KINGS_GUARD_START.splitlines()
    assert text.splitlines()[len(board_lines(text)) + 1].startswith("Pieces: K King, Q Queen")
    assert "Empty squares: '.' light, ':' dark." in text


def test_stone_garden_raven_facings_and_promoted_kings() -> None:
    fen = "k(+)7/8/3r(E)4/8/8/2R(W)5/8/4K(+)3 b - - 7 31 30/30 c3:1,d6:0 2/1"
    text = text_board(variants.from_fen("stone_garden", fen))
    lines = board_lines(text)
    assert lines[1] == "8 k+ :  .  :  .  :  .  :  8"
    assert lines[3] == "6 .  :  .  rE .  :  .  :  6"
    assert lines[6] == "3 :  .  RW .  :  .  :  .  3"
    assert lines[8] == "1 :  .  :  .  K+ .  :  .  1"
    assert "K+: a promoted King." in text
    assert "RE facing east, RW facing west" in text
    start = text_board(variants.new_game("stone_garden", seed=1))
    assert board_lines(start)[1] == "8 o  rS i  p  k  i  rS o  8"
    assert board_lines(start)[8] == "1 O  RN I  P  K  I  RN O  1"
    assert "P Policeman, R Raven" in start


def test_jepps_random_setup_in_progress() -> None:
    g = variants.new_game("jepps_random", rolls=[2, 4, 3, 5, 1, 2])
    g.play("Na1")
    g.play("Bb1")
    lines = board_lines(text_board(g))
    assert lines[1] == "8 .  :  .  :  .  :  .  :  8"
    assert lines[2] == "7 p  p  p  p  p  p  p  p  7"
    assert lines[8] == "1 N  B  :  .  :  .  :  .  1"


def test_lost_pieces_are_listed() -> None:
    g = variants.from_fen("tquarchess", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 Tt -/- - - 0")
    g.play("exd5")
    assert text_board(g).rstrip().endswith("Lost: Black p")


@pytest.mark.parametrize("key", variants.names())
def test_every_board_is_ascii_and_fits_80_columns(key: str) -> None:
    for plies in (0, 15, 40):
        g = variants.random_playout(key, plies, 4)
        for orientation in ("white", "black"):
            text = text_board(g, orientation=orientation)
            assert text.isascii()
            assert max(len(line) for line in text.splitlines()) <= 80


def test_orientation_must_be_a_side() -> None:
    with pytest.raises(ValueError, match="orientation"):
        text_board(variants.new_game("kings_guard", seed=1), orientation="mover")
