"""Guardener Chess, in words (RULES.md section 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..geometry import BLACK, WHITE
from ..guardener import GUARDENER_START, NO_PAWN_TERRACE, OWN_HALF, TERRACES
from ..rulebook import Block, Section, Table

if TYPE_CHECKING:
    from ..base import Variant

INVENTOR = "Simon E. Jepps"
SOURCE = "Guardener Chess, jeppsquare.me"
TAGLINE = "An 80-square board with terraces, two d4 dice, teleports and resurrection."


def sections(rules: Variant) -> tuple[Section, ...]:
    white_half = f"{OWN_HALF[WHITE].start}-{OWN_HALF[WHITE].stop - 1}"
    black_half = f"{OWN_HALF[BLACK].start}-{OWN_HALF[BLACK].stop - 1}"
    return (
        Section(
            "Board and setup",
            (
                "80 squares: the usual 8x8 (files a-h, ranks 1-8) plus four terraces of four "
                "squares. Terraces are ordinary squares for every piece: sliders pass through "
                "them and Knights land on them. Files run w a b c d e f g h z, ranks 0 to 9.",
                Table(
                    ("Terrace", "Squares", "Where"),
                    (
                        ("T1", ", ".join(TERRACES[1]), "rank 0, behind White"),
                        ("T2", ", ".join(TERRACES[2]), "file w, left of the a-file"),
                        ("T3", ", ".join(TERRACES[3]), "file z, right of the h-file"),
                        ("T4", ", ".join(TERRACES[4]), "rank 9, behind Black"),
                    ),
                ),
                "The FIDE army stands on ranks 1-2 (White) and 7-8 (Black). Each side also has "
                "a Guardener (G): White's stands between "
                f"{' and '.join(GUARDENER_START[WHITE])}, Black's between "
                f"{' and '.join(GUARDENER_START[BLACK])}. Until its first move it stands on "
                "both squares at once (the board shows G2 on both).",
                "White moves first. There is no check and no checkmate: you win by capturing "
                "the enemy King.",
            ),
        ),
        Section(
            "Dice",
            (
                "Two four-sided dice. At the start of each turn the bot rolls both for the "
                "player to move and records the roll before showing it. Each value says which "
                "pieces may move; with two different values you may use either die, for one "
                "move.",
                Table(
                    ("Die", "Permission"),
                    (
                        (
                            "1",
                            "a pawn, the King or the Guardener may capture; a pawn may move beyond the centre line",
                        ),
                        ("2", "a Knight may move or capture"),
                        ("3", "a Bishop may move or capture"),
                        ("4", "a Rook may move or capture; the King may castle"),
                        (
                            "double",
                            "the Queen or any piece may move or capture, and you may roll again instead of moving (reroll)",
                        ),
                        (
                            "Double x2",
                            "a double rolled again from a double: everything a double allows, plus one teleport to terrace T(value) or a resurrection there",
                        ),
                    ),
                ),
                "Free moves, with no die: the King and the Guardener may always move without "
                "capturing, and so may a pawn whose destination is on its own side of the "
                f"centre line (ranks {white_half} for White, {black_half} for Black). A White "
                "double step d2-d4 is free; d4-d5 needs a 1, and so does every later move of a "
                "pawn already past the centre.",
                "The Queen never moves without a double.",
            ),
        ),
        Section(
            "Special actions",
            (
                (
                    "Re-roll (reroll): after a double you may roll again instead of moving, "
                    "after every double. The new roll replaces the old one.",
                    "Teleport, on a Double x2 of value v: any one piece moves to any vacant "
                    "square of terrace Tv, without capturing. Written as the move followed by "
                    "the terrace: Nfz4 {T3}, naming the origin file or rank when another piece "
                    "of the same type could teleport there. A pawn may not teleport to "
                    f"T{NO_PAWN_TERRACE[WHITE]} (White) or T{NO_PAWN_TERRACE[BLACK]} (Black), "
                    "the terrace behind its promotion rank.",
                    "Resurrection, instead of a teleport on a Double x2: a captured Guardener "
                    "comes back on any vacant square of that terrace: G@z4 {T3}. Each side has "
                    "at most one Guardener on the board.",
                    "Castling: as in FIDE chess (King and Rook unmoved, the squares between "
                    "empty), on a 4 or a double. With no check in this game there is no "
                    "'through check' condition: O-O, O-O-O.",
                    "En passant: as in FIDE chess; being a pawn capture it needs a 1 or a double.",
                    "Promotion: on rank 8 for White and rank 1 for Black, only to a piece type "
                    "your side has lost (fewer on the board than at the start: Q, R, B or N). "
                    "With no such type the pawn may not step onto the last rank. e8=Q.",
                    "The Guardener's first move may leave from either of its two start squares, "
                    "and an enemy moving onto either square captures it.",
                    "Pass (pass): once per game, only when every legal move is a King move onto "
                    "an attacked square, or there is no legal move at all.",
                    "Walking the plank: once your pass is spent, a player whose only moves put "
                    "the King on an attacked square must make one of them.",
                ),
            ),
        ),
        Section(
            "How the game ends",
            (
                (
                    "Capturing the enemy King wins at once.",
                    "A player with no legal move and no pass left is stalemated: the game is a draw.",
                    "Players may resign or agree a draw.",
                ),
            ),
        ),
        Section(
            "Notation",
            (
                "Files w a b c d e f g h z, ranks 0-9, pieces K Q R B N G (pawns have no "
                "letter). The record shows each turn's roll before the move.",
                Table(
                    ("Action", "Written"),
                    (
                        ("move, capture", "Nf3, Bxc6, e4, exd5"),
                        ("castling", "O-O, O-O-O"),
                        ("promotion", "e8=Q"),
                        ("teleport", "Nfz4 {T3}"),
                        ("resurrection", "G@z4 {T3}"),
                        ("re-roll, pass", "reroll, pass"),
                        ("a turn in the record", "[2 3] Nf3; [4 4] reroll [3 3] Nfz4 {T3}"),
                    ),
                ),
            ),
        ),
    )


def piece_notes(rules: Variant) -> tuple[Block, ...]:
    return (
        "The Guardener is colour-bound: it keeps to one colour of squares, and chooses "
        "which by the square it first leaves from (only a teleport can change it). The "
        "pawn's double step belongs to a pawn that has not yet moved.",
    )
