"""``variants.explain`` and ``Game.play``'s refusals (contract C2).

One case per refusal cause per variant: each asserts the cause code AND the rule
the message names (a phrase of it), not only that some message exists. Then the
closest legal actions, the error classes, and that explaining never changes the
game and never fails on junk.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import variants
from variants.refusal import CAUSES

Make = Callable[[], variants.Game]


def fen(key: str, text: str, rolls: tuple[int, ...] = ()) -> Make:
    return lambda: variants.from_fen(key, text, rolls=list(rolls))


def played(key: str, rolls: list[int], moves: list[str], **options: bool) -> Make:
    def make() -> variants.Game:
        g = variants.new_game(key, rolls=rolls, options=dict(options))
        for m in moves:
            g.play(m)
        return g

    return make


# ----- Guardener ------------------------------------------------------------------------------

G_START = (
    "***1g(2)g(2)1***/*rnbqkbnr*/*pppppppp*/10/10/10/10/*PPPPPPPP*/*RNBQKBNR*/***1G(2)G(2)1***"
)
# White: Rooks a1 h1, Knights b1 c4, pawns a2 b2 e3 b7, King e1, Guardener captured.
# Black: King e8, Rooks a8 h8, pawn e4, Bishop z4, Guardener on its double start.
G_A = "***1g(2)g(2)1***/*r3k2r*/*1P6*/10/10/3N1p3b/5P4/*PP6*/*RN2K2R*/***4***"
G_LONE = "***4***/*4k3*/*8*/10/10/10/10/*2P5*/*4K3*/***4***"
G_KINGLESS = G_START.replace("*RNBQKBNR*", "*RNBQ1BNR*")


def guardener(placement: str, fields: str) -> Make:
    return fen("guardener", f"{placement} {fields}")


GUARDENER = [
    (
        guardener(G_START, "w KQkq - 0 1 23 -"),
        "hello",
        "notation",
        "not an action in Guardener Chess notation",
    ),
    (guardener(G_START, "w KQkq - 0 1 23 -"), "Ni9", "no-square", "there is no square i9"),
    (guardener(G_START, "w KQkq - 0 1 23 -"), "e3e4", "no-piece", "there is no piece on e3"),
    (guardener(G_A, "w KQ - 0 1 23 -"), "Qd4", "no-piece", "White has no Queen"),
    (
        guardener(G_START, "w KQkq - 0 1 23 -"),
        "e7e6",
        "not-your-piece",
        "the pawn on e7 is Black's",
    ),
    (guardener(G_START, "w KQkq - 0 1 23 -"), "e5", "not-your-turn", "it is White's turn"),
    (
        guardener(G_START, "w KQkq - 0 1 23 -"),
        "Nh4",
        "unreachable",
        "no Knight of yours can reach h4",
    ),
    (
        guardener(G_START, "w KQkq - 0 1 23 -"),
        "Qd3",
        "blocked",
        "the Queen on d1 is blocked by the pawn on d2",
    ),
    (guardener(G_START, "w KQkq - 0 1 23 -"), "Rb1", "occupied", "your own Knight stands on b1"),
    (
        guardener(G_START, "w KQkq - 0 1 23 -"),
        "d2e3",
        "capture-only",
        "a pawn moves diagonally only to capture",
    ),
    (
        guardener(G_A, "w KQ - 0 1 23 -"),
        "e4",
        "no-capture",
        "a pawn does not capture from e3 to e4",
    ),
    (guardener(G_A, "w KQ - 0 1 12 -"), "b8", "promotion-needed", "must promote: add =B or =Q"),
    (
        guardener(G_A, "w KQ - 0 1 12 -"),
        "a3=Q",
        "promotion-not-allowed",
        "only a piece reaching the last rank promotes",
    ),
    (
        guardener(G_A, "w KQ - 0 1 12 -"),
        "b8=R",
        "promotion-choice",
        "only to a piece type its side has lost",
    ),
    (guardener(G_A, "w KQ - 0 1 23 -"), "Nd2", "ambiguous", "it could be Nbd2 or Ncd2"),
    (guardener(G_A, "w KQ - 0 1 23 -"), "Rg1", "dice", "the dice [2 3] allow a Knight or a Bishop"),
    (guardener(G_A, "w KQ - 0 1 23 -"), "O-O", "dice", "castling needs a 4 or a double"),
    (
        guardener(G_A, "w KQ - 0 1 23 -"),
        "b8=Q",
        "dice",
        "a pawn moves past the centre line only on a 1",
    ),
    (guardener(G_A, "w KQ - 0 1 23 -"), "Nz4 {T3}", "dice", "a teleport needs a Double x2"),
    (guardener(G_A, "w KQ - 0 1 23 -"), "G@z4 {T3}", "dice", "a resurrection needs a Double x2"),
    (guardener(G_A, "w KQ - 0 1 23 -"), "reroll", "reroll", "you may re-roll only after a double"),
    (
        guardener(G_A, "w KQ - 0 1 23 -"),
        "pass",
        "pass",
        "you may pass only when every move you have puts your King on an attacked square",
    ),
    (guardener(G_A, "w KQ - 0 1 23 w"), "pass", "pass", "one pass per game"),
    (
        guardener(G_A, "w KQ - 0 1 33r -"),
        "Nw4 {T2}",
        "terrace",
        "leads to T3 (z3, z4, z5, z6) only",
    ),
    (
        guardener(G_A, "w KQ - 0 1 44r -"),
        "bc9 {T4}",
        "terrace",
        "a pawn may not teleport to the terrace behind its promotion rank",
    ),
    (
        guardener(G_A, "w KQ - 0 1 33r -"),
        "Nz4 {T3}",
        "occupied",
        "a teleport lands on a vacant square",
    ),
    (
        guardener(G_START, "w KQkq - 0 1 33r -"),
        "G@z4 {T3}",
        "resurrection",
        "only a captured Guardener resurrects",
    ),
    (
        guardener(G_LONE, "w - - 0 1 23 - c2"),
        "c4",
        "double-step",
        "only a pawn that has not yet moved may step two squares",
    ),
    (
        guardener(G_KINGLESS, "w - - 0 1 23 -"),
        "e4",
        "game-over",
        "the game is over: black wins (king captured)",
    ),
]

# ----- Tquarchess ------------------------------------------------------------------------------

TQ_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
LAPSED = "Tt -/- - - 0"  # both Tquarcs waiting, but no square left to enter on
TELEPORT_NOT_NOW = "rnbqkbnr/p1pppppp/3t(1)4/8/8/5T(3)2/PPPPPPPP/RNBQKBNR w KQkq - 0 1 - -/- - - 0"
TELEPORT_NOW = TELEPORT_NOT_NOW.replace("- - 0", "- b 0")


def tq(text: str, rolls: tuple[int, ...] = ()) -> Make:
    return fen("tquarchess", text, rolls)


TQUARCHESS = [
    (tq(TQ_START), "hello there", "notation", "not an action in Tquarchess notation"),
    (tq(TQ_START), "z9", "no-square", "there is no square z9"),
    (tq(TQ_START), "e3e4", "no-piece", "there is no piece on e3"),
    (tq(TQ_START), "Te4", "no-piece", "your Tquarc has not entered yet"),
    (
        tq("4k3/p7/8/8/8/8/8/4K3 w - - 0 1 t -/- - - 0"),
        "Te4",
        "no-piece",
        "your Tquarc is captured",
    ),
    (tq(TQ_START), "e7e5", "not-your-piece", "the pawn on e7 is Black's; it is White's turn"),
    (tq(TQ_START), "Nf6", "not-your-turn", "it is White's turn"),
    (tq(TQ_START), "Nh4", "unreachable", "no Knight of yours can reach h4"),
    (
        tq(f"4k3/8/8/8/8/4P3/8/4K3 w - - 0 1 {LAPSED}"),
        "e3e5",
        "unreachable",
        "a pawn steps two squares only from its start square (rank 2)",
    ),
    (
        tq(f"4k3/p7/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "Kh4",
        "unreachable",
        "a King on e1 cannot reach h4: the King moves one square in any direction",
    ),
    (tq(TQ_START), "Qh5", "blocked", "the Queen on d1 is blocked by the pawn on e2"),
    (tq(TQ_START), "Nd2", "occupied", "your own pawn stands on d2"),
    (tq(TQ_START), "exd3", "capture-only", "a pawn moves diagonally only to capture"),
    (
        tq(f"4k3/8/8/8/4p3/4P3/8/4K3 w - - 0 1 {LAPSED}"),
        "e4",
        "no-capture",
        "a pawn does not capture from e3 to e4",
    ),
    (
        tq(f"4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 1 {LAPSED}"),
        "e2e4",
        "no-capture",
        "a pawn does not capture straight ahead",
    ),
    (
        tq(f"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "b8",
        "promotion-needed",
        "a pawn reaching rank 8 must promote: add =B, =N, =Q or =R",
    ),
    (tq(TQ_START), "a3=Q", "promotion-not-allowed", "only a piece reaching the last rank promotes"),
    (
        tq(f"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "b8=K",
        "promotion-choice",
        "promotes here to Bishop, Knight, Queen or Rook, not to K",
    ),
    (
        tq(f"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1 {LAPSED}"),
        "Nd2",
        "ambiguous",
        "it could be Nbd2 or Nfd2",
    ),
    (
        tq(f"4k3/8/8/8/8/8/8/rN2K3 w - - 0 1 {LAPSED}"),
        "Nc3",
        "self-check",
        "the Knight on b1 is pinned: moving it would put your King in check from the Rook on a1",
    ),
    (
        tq(f"4k3/8/8/8/8/8/8/4K2r w - - 0 1 {LAPSED}"),
        "Kd1",
        "self-check",
        "your King would still be in check from the Rook on h1",
    ),
    (
        tq(f"3rk3/8/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "Kd2",
        "self-check",
        "your King would be in check from the Rook on d8",
    ),
    (
        tq(f"r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Qkq - 0 1 {LAPSED}"),
        "O-O",
        "castling-rights",
        "needs a King and Rook that have never moved",
    ),
    (
        tq(f"5r1k/8/8/8/8/8/8/R3K2R w KQ - 0 1 {LAPSED}"),
        "O-O",
        "castling-check",
        "through or into check: f1 is attacked",
    ),
    (
        tq(f"4r2k/8/8/8/8/8/8/R3K2R w KQ - 0 1 {LAPSED}"),
        "O-O-O",
        "castling-check",
        "you may not castle out of check",
    ),
    (
        tq(TQ_START),
        "O-O",
        "blocked",
        "castling kingside (O-O) needs the squares between King and Rook empty; f1 is occupied",
    ),
    (
        tq(TELEPORT_NOT_NOW),
        "Tb7%",
        "teleport-timing",
        "a Tquarc teleports only on the move right after the enemy Tquarc moved",
    ),
    (
        tq(TELEPORT_NOW),
        "Ta7%",
        "teleport-square",
        "teleports only to an empty square of its own colour in Tquad 3 (b5-d7)",
    ),
    (
        tq(TQ_START.replace("KQkq - 0 1", "KQkq - 0 1 Tt b/abcdefgh - - 0")),
        "Nf3/T",
        "entry",
        "g1 has been left before",
    ),
    (tq(TELEPORT_NOT_NOW), "Nc3/T", "entry", "your Tquarc has entered already"),
    (
        tq("4k3/p7/1N6/8/8/8/8/4K3 w - - 0 1 Tt -/- - - 0"),
        "Na8/T",
        "resurrection",
        "a Knight becomes a Tquarc only while your Tquarc is captured",
    ),
    (
        tq("4k3/8/2N5/8/8/8/8/4K3 w - - 0 1 t -/- - - 0"),
        "Nb8/T",
        "resurrection",
        "only on a square of its own side's colour: a8, c8, e8, g8",
    ),
    (
        tq(f"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "b8=T",
        "resurrection",
        "a pawn promotes to a Tquarc only while your Tquarc is captured",
    ),
    (
        tq(f"4k3/p7/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"),
        "Ke3",
        "king2",
        "the King slides two squares only while your Tquarc is captured",
    ),
    (
        tq("4k3/p7/8/8/8/8/8/4K3 w - - 0 1 t -/- K - 0"),
        "Ke3",
        "king2",
        "your King has used its two-square move already",
    ),
    (tq(f"4k3/p7/8/8/8/8/8/4K3 w - - 0 1 {LAPSED}"), "roll", "roll", "nothing to roll for"),
    (
        tq("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 Tt abcdefgh/abcdefgh - - 2"),
        "roll",
        "roll",
        "you have rolled the Tquarc die this turn already",
    ),
    (
        tq(f"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 {LAPSED}"),
        "Kg8",
        "game-over",
        "the game is over: draw (stalemate)",
    ),
]

# ----- King's Guard ---------------------------------------------------------------------------


def kg(text: str) -> Make:
    return fen("kings_guard", text)


KG_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"

KINGS_GUARD = [
    (kg(KG_START), "hello", "notation", "not an action in King's Guard Chess notation"),
    (kg(KG_START), "j4", "no-square", "there is no square j4"),
    (kg(KG_START), "e3e4", "no-piece", "there is no piece on e3"),
    (kg("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"), "Qd3", "no-piece", "White has no Queen"),
    (kg(KG_START), "d7d6", "not-your-piece", "the pawn on d7 is Black's"),
    (kg(KG_START), "e6", "not-your-turn", "it is White's turn"),
    (kg(KG_START), "e4", "unreachable", "the pawn moves one square in any direction (never two)"),
    (kg(KG_START), "Bc4", "blocked", "the Bishop on f1 is blocked by the pawn on e2"),
    (kg(KG_START), "Nd2", "occupied", "your own pawn stands on d2"),
    (
        kg("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"),
        "exd5",
        "needs-assist",
        "a pawn captures only when a friendly non-pawn attacks the square; none of yours attacks d5",
    ),
    (
        kg("4k3/8/8/3p4/4P3/8/8/3QK3 w - - 0 1"),
        "Qxd5",
        "pawns-only-capture",
        "only pawns capture in King's Guard Chess",
    ),
    (kg(KG_START), "O-O", "no-castling", "there is no castling in King's Guard Chess"),
    (
        kg("4k3/1P6/8/8/8/8/P7/4K3 w - - 0 1"),
        "b8",
        "promotion-needed",
        "must promote: add =B, =N, =Q or =R",
    ),
    (
        kg("4k3/1P6/8/8/8/8/P7/4K3 w - - 0 1"),
        "a3=Q",
        "promotion-not-allowed",
        "only a piece reaching the last rank promotes",
    ),
    (kg("4k3/1P6/8/8/8/8/P7/4K3 w - - 0 1"), "b8=K", "promotion-choice", "not to K"),
    (
        kg("4k3/pppppppp/8/8/8/8/P7/1N2KN2 w - - 0 1"),
        "Nd2",
        "ambiguous",
        "it could be Nbd2 or Nfd2",
    ),
    (kg("4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1"), "Kd2", "game-over", "black wins (no pawns left)"),
]

# ----- Stone Garden --------------------------------------------------------------------------


def sg(text: str) -> Make:
    return fen("stone_garden", text)


SG_START = "or(S)ipkir(S)o/hhhhhhhh/8/8/8/8/HHHHHHHH/OR(N)IPKIR(N)O w - - 0 1 0/0 - 0/0"
SG_NOTATION = "7k/8/3H4/8/3R(N)4/8/8/4K3 w - - 0 10 5/5 - 0/0"

STONE_GARDEN = [
    (sg(SG_START), "hello", "notation", "not an action in Stone Garden Chess notation"),
    (
        sg(SG_START),
        "d4",
        "notation",
        "Stone Garden Chess pieces are always written with their letter",
    ),
    (sg(SG_START), "Qd4", "notation", "has no piece written Q: its pieces are H O I P R K"),
    (sg(SG_START), "Hi3", "no-square", "there is no square i3"),
    (sg(SG_START), "d3d5", "no-piece", "there is no piece on d3"),
    (sg(SG_NOTATION), "Od4", "no-piece", "White has no Ox"),
    (sg(SG_START), "d7c5", "not-your-piece", "the Horse on d7 is Black's"),
    (sg(SG_START), "Hc5", "not-your-turn", "it is White's turn"),
    (sg(SG_START), "Hg3", "unreachable", "the Horse leaps two squares forward and one to the side"),
    (sg(SG_START), "Oa4", "blocked", "the Ox on a1 is blocked by the Horse on a2"),
    (sg(SG_START), "Ob1", "occupied", "your own Raven stands on b1"),
    (
        sg("4k3/8/8/8/8/8/8/O3K3 w - - 0 10"),
        "Oa2",
        "capture-only",
        "a Ox goes from a1 to a2 only to capture",
    ),
    (
        sg("4k3/8/8/8/8/8/3o4/3PK3 w - - 0 10"),
        "Pxd2",
        "no-capture",
        "a Policeman does not capture from d1 to d2",
    ),
    (
        sg(SG_NOTATION),
        "Hc8",
        "promotion-needed",
        "a Horse reaching rank 8 must promote: add =I, =O, =P or =R",
    ),
    (
        sg(SG_NOTATION),
        "Hc8=K",
        "promotion-choice",
        "a Horse promotes to a Policeman, Ox, Index or Raven, never to a King",
    ),
    (
        sg(SG_NOTATION),
        "Rd5=O",
        "promotion-not-allowed",
        "only a piece reaching the last rank promotes",
    ),
    (
        sg("7k/8/8/8/3R(N)1R(N)2/8/8/4K3 w - - 0 10 5/5 - 0/0"),
        "Re4",
        "ambiguous",
        "it could be Rde4 or Rfe4",
    ),
    (
        sg("4k3/8/8/8/8/3h4/8/O3K3 w - - 0 10"),
        "Oa4",
        "self-check",
        "your King is in check and would still be in check from the Horse on d3",
    ),
    (sg(SG_START), "Rb1^E", "raven-early", "no Raven may turn during her side's first 5 moves"),
    (
        sg("4k3/8/8/8/3R(N)4/8/8/4K3 w - - 0 10 5/5 d4:1 0/0"),
        "Rd4^E",
        "raven-cooldown",
        "this Raven turned two moves ago; a Raven may turn once in three moves",
    ),
    (
        sg("4k3/8/8/8/3R(N)4/8/8/4K3 w - - 0 10 5/5 d4:0 0/0"),
        "Re4^E",
        "raven-cooldown",
        "this Raven turned on her side's last move",
    ),
    (sg(SG_NOTATION), "Rd4^S", "raven-turn", "a Raven turns 90 degrees"),
    (sg(SG_NOTATION), "Re4^W", "raven-turn", "facing N, she may turn to E or W"),
    (sg(SG_NOTATION), "Hd6^E", "raven-turn", "only a Raven turns"),
    (sg(SG_START), "O-O", "no-castling", "there is no castling in Stone Garden Chess"),
    (sg("k7/8/8/8/8/8/8/4K3 w - - 0 1"), "Kd1", "game-over", "draw (bare Kings)"),
]

# ----- Jepps Random ---------------------------------------------------------------------------

# White: a1 (2,4) N or R; b1 (3,5) B or Q; c1 (1,2) K or N; d1 (3,5); e1 (4,6); f1 (2,4).
WHITE_ROLLS = [2, 4, 3, 5, 1, 2, 3, 5, 4, 6, 2, 4]
THREE_PLACED = played("jepps_random", WHITE_ROLLS, ["Na1", "Bb1", "Kc1"])
MEDIATOR_EVEN = played(
    "jepps_random", WHITE_ROLLS + [2, 4], ["Na1", "Bb1", "Kc1", "Qd1", "Re1", "Nf1"]
)
IN_PLAY = played(
    "jepps_random", WHITE_ROLLS + [2, 4], ["Na1", "Bb1", "Kc1", "Qd1", "Re1", "Nf1", "Mirror"]
)


def jr(text: str) -> Make:
    return fen("jepps_random", text)


JEPPS_RANDOM = [
    (THREE_PLACED, "hello", "setup-phase", "the setup comes first: White places a piece on d1"),
    (THREE_PLACED, "e4", "setup-phase", "the setup comes first"),
    (THREE_PLACED, "Mirror", "setup-phase", "Mirror and Reverse answer the mediator roll"),
    (MEDIATOR_EVEN, "Na8", "setup-phase", "Black answers the mediator roll first (Mirror)"),
    (
        THREE_PLACED,
        "Ne1",
        "setup-square",
        "the next square to fill is d1: White fills a1 to h1 in order",
    ),
    (THREE_PLACED, "Nd8", "setup-square", "White sets up rank 1"),
    (THREE_PLACED, "Kd1", "setup-stock", "no King is left to place"),
    (THREE_PLACED, "Nd1", "dice", "the dice [3 5] offer a Bishop or a Queen"),
    (
        THREE_PLACED,
        "Bd1",
        "bishop-colour",
        "the Bishops must stand on opposite colours, and d1 is light like the Bishop on b1",
    ),
    (THREE_PLACED, "reroll", "reroll", "you may re-roll only on a double"),
    (
        MEDIATOR_EVEN,
        "Reverse",
        "mediator",
        "the mediator dice [2 4] are both even, so Black answers Mirror",
    ),
    (IN_PLAY, "Mirror", "setup-over", "the setup is over"),
    (
        IN_PLAY,
        "O-O",
        "no-castling",
        "there is no castling in Jepps Random Chess; instead, once per game",
    ),
    (IN_PLAY, "hello", "notation", "not an action in Jepps Random Chess notation"),
    (IN_PLAY, "i5", "no-square", "there is no square i5"),
    (IN_PLAY, "e3e4", "no-piece", "there is no piece on e3"),
    (IN_PLAY, "e7e5", "not-your-piece", "the pawn on e7 is Black's"),
    (IN_PLAY, "e5", "not-your-turn", "it is White's turn"),
    (IN_PLAY, "Nh4", "unreachable", "no Knight of yours can reach h4"),
    (IN_PLAY, "Qd3", "blocked", "the Queen on d1 is blocked by the pawn on d2"),
    (IN_PLAY, "Kb1", "occupied", "your own Bishop stands on b1"),
    (
        jr("4k3/8/8/8/8/7b/PPPPPP1P/R3K2R w - - 0 1 Kk"),
        "Kg1",
        "relocation",
        "the King may not relocate across an attacked square (f1)",
    ),
    (
        jr("4k3/8/8/8/8/7b/PPPPPP1P/R3K2R w - - 0 1 Kk"),
        "Kb1",
        "relocation",
        "a King relocates only to a square of its own colour (dark)",
    ),
    (
        jr("7k/8/8/2b5/8/8/PPPPP1PP/R3K2R w - - 0 1 Kk"),
        "Kg1",
        "relocation",
        "the King may not relocate onto an attacked square (g1)",
    ),
    (
        jr("4r2k/8/8/8/8/8/PPPP1PPP/R3K2R w - - 0 1 Kk"),
        "Kc1",
        "relocation",
        "the King may not relocate out of check",
    ),
    (
        jr("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1 k"),
        "Kg1",
        "relocation",
        "a King may relocate only once per game, and only if it has never moved",
    ),
    (jr("4k3/8/8/8/8/8/8/rN2K3 w - - 0 1 -"), "Nc3", "self-check", "the Knight on b1 is pinned"),
    (jr("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 -"), "b8", "promotion-needed", "must promote"),
    (jr("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1 -"), "Nd2", "ambiguous", "it could be Nbd2 or Nfd2"),
    (
        jr("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 -"),
        "Kg8",
        "game-over",
        "the game is over: draw (stalemate)",
    ),
]

CASES = {
    "guardener": GUARDENER,
    "tquarchess": TQUARCHESS,
    "kings_guard": KINGS_GUARD,
    "stone_garden": STONE_GARDEN,
    "jepps_random": JEPPS_RANDOM,
}

# Causes that apply to every variant, each tested in each one.
EVERY_VARIANT = (
    "notation",
    "no-square",
    "no-piece",
    "not-your-piece",
    "occupied",
    "ambiguous",
    "game-over",
)

ALL = [
    pytest.param(make, text, cause, phrase, id=f"{key}:{cause}:{text}")
    for key, cases in CASES.items()
    for make, text, cause, phrase in cases
]


@pytest.mark.parametrize(("make", "text", "cause", "phrase"), ALL)
def test_each_refusal_names_its_cause_and_rule(
    make: Make, text: str, cause: str, phrase: str
) -> None:
    g = make()
    before = (g.fen(), g.record(), g.legal_moves())
    refusal = variants.explain(g, text)
    assert refusal is not None
    assert refusal.cause == cause, refusal
    assert phrase in refusal.message, refusal.message
    assert refusal.cause in CAUSES
    assert len(refusal.closest) <= 5
    assert all(c in g.legal_moves() for c in refusal.closest)
    # play raises the same explanation, and changes nothing
    with pytest.raises(variants.IllegalMove) as err:
        g.play(text)
    assert err.value.refusal == refusal
    assert str(err.value).startswith(refusal.message)
    assert (g.fen(), g.record(), g.legal_moves()) == before


def test_every_cause_is_tested_and_the_common_ones_in_every_variant() -> None:
    tested = {(key, cause) for key, cases in CASES.items() for _, _, cause, _ in cases}
    for cause in CAUSES:
        if cause != "not-legal":  # the fallback when no more specific rule is found
            assert any(c == cause for _, c in tested), cause
    for key in CASES:
        for cause in EVERY_VARIANT:
            assert (key, cause) in tested, (key, cause)


# ----- the closest actions, the error classes, legal texts -------------------------------------


def test_closest_actions_prefer_the_same_piece_and_destination() -> None:
    g = variants.from_fen("tquarchess", f"4k3/8/8/8/8/8/8/rN2K3 w - - 0 1 {LAPSED}")
    refusal = variants.explain(g, "Nc3")
    assert refusal is not None
    assert refusal.closest[0].startswith("K")  # only King moves are legal here
    g = variants.from_fen("tquarchess", TQ_START)
    refusal = variants.explain(g, "e5")
    assert refusal is not None and refusal.closest[:2] == ("e3", "e4")
    refusal = variants.explain(g, "Bc4")
    assert refusal is not None and "c4" in refusal.closest


def test_the_guardener_example_of_the_issue() -> None:
    g = variants.from_fen("guardener", f"{G_A} w KQ - 0 1 23 -")
    refusal = variants.explain(g, "Rh2")
    assert refusal is not None
    assert refusal.message == "the dice [2 3] allow a Knight or a Bishop"
    assert str(refusal).startswith(
        "the dice [2 3] allow a Knight or a Bishop ('Rh2'); closest legal: "
    )


def test_legal_texts_are_not_refused() -> None:
    for key in variants.names():
        g = variants.random_playout(key, 8, 5)
        for text in g.legal_moves():
            assert variants.explain(g, text) is None, (key, text)


def test_errors_keep_their_classes() -> None:
    g = variants.from_fen("tquarchess", TQ_START)
    with pytest.raises(variants.BadNotation):
        g.play("hello")
    with pytest.raises(variants.NotLegalHere):
        g.play("e5")
    two = variants.from_fen("tquarchess", f"4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1 {LAPSED}")
    with pytest.raises(variants.AmbiguousMove) as err:
        two.play("Nd2")
    assert err.value.choices == ("Nbd2", "Nfd2")
    over = variants.from_fen("tquarchess", f"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 {LAPSED}")
    with pytest.raises(variants.GameOver) as done:
        over.play("Kg8")
    assert str(done.value) == "the game is over: draw (stalemate)"
    with pytest.raises(variants.IllegalMove) as bad:
        g.play(7)  # type: ignore[arg-type]
    assert bad.value.refusal is not None and bad.value.refusal.cause == "notation"


def test_explaining_the_happy_path_is_never_reached() -> None:
    """``play`` explains only refused texts: a legal text never builds a Refusal."""
    explain_module = sys.modules["variants.explain"]

    calls = []
    original = explain_module.explain

    def spy(game: variants.Game, text: str) -> variants.Refusal | None:
        calls.append(text)
        return original(game, text)

    explain_module.explain = spy  # type: ignore[assignment]
    try:
        g = variants.new_game("tquarchess", seed=3)
        for _ in range(20):
            g.play(g.legal_moves()[0])
        assert calls == []
        with pytest.raises(variants.IllegalMove):
            g.play("Zz9")
        assert calls == ["Zz9"]
    finally:
        explain_module.explain = original  # type: ignore[assignment]


JUNK = st.one_of(
    st.text(max_size=20),
    st.from_regex(r"\A[KQRBNTPGHOI]?[a-z]?[0-9]?x?[a-z][0-9](=[A-Z])?[/%^{}T0-9NESW ]{0,4}\Z"),
)


@pytest.mark.parametrize("key", variants.names())
def test_explain_never_fails_on_junk(key: str) -> None:
    games = [variants.random_playout(key, n, 7) for n in (0, 9, 25)]

    @settings(
        max_examples=120,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(text=JUNK, which=st.integers(0, len(games) - 1))
    def attempt(text: str, which: int) -> None:
        g = games[which]
        refusal = variants.explain(g, text)
        if refusal is None:
            g.copy().play(text)
        else:
            assert refusal.cause in CAUSES and refusal.message

    attempt()
