"""Tquarchess, in words (RULES.md section 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..geometry import BLACK, WHITE
from ..rulebook import Block, Section, Table
from ..status import either
from ..tquarchess import KNIGHT_RESURRECTION_SQUARES, QUADS, TQUARC_DIE, TQUARC_MATERIAL

if TYPE_CHECKING:
    from ..base import Variant

INVENTOR = "Simon E. Jepps"
SOURCE = "Tquarchess, jeppsquare.me"
TAGLINE = "FIDE plus the Tquarc, a teleporting, dice-valued leaper."


def sections(rules: Variant) -> tuple[Section, ...]:
    quads = tuple(
        (f"T{n}", f"{lo_f}-{hi_f}, ranks {lo_r}-{hi_r}", f"{lo_f}{lo_r}-{hi_f}{hi_r}")
        for n, (lo_f, hi_f, lo_r, hi_r) in QUADS.items()
    )
    return (
        Section(
            "Board and setup",
            (
                "FIDE chess on the 8x8 board from the usual setup, with check, checkmate, "
                "stalemate as a draw, castling, en passant, the 50-move rule and threefold "
                "repetition. Each side also has one extra piece, the Tquarc (T), which starts "
                "off the board and enters during play.",
            ),
        ),
        Section(
            "The Tquarc die and the Tquads",
            (
                f"Each Tquarc carries a value from a {TQUARC_DIE}-sided die (1-{TQUARC_DIE}), "
                "shown on the board (T3). The die is rolled when the Tquarc enters, when it "
                "teleports and when it is resurrected.",
                "A Tquad is one of four 3x3 blocks that split the central 6x6 (files b-g, ranks "
                "2-7), numbered clockwise from White's kingside. A Tquarc showing v teleports "
                "into Tquad v.",
                Table(("Tquad", "Files and ranks", "Squares"), quads),
            ),
        ),
        Section(
            "Special actions",
            (
                (
                    "Entry (Seirawan gating): when a back-rank piece (K, Q, R, B or N) first "
                    "leaves its original square, you may put the Tquarc on the square it "
                    "vacated, in the same move: Bg5/T. On castling either vacated square may "
                    "be used: O-O/Th1 or O-O/Te1. The entry rolls the die, and counts as a "
                    "teleport for the response rule below. An entering Tquarc may block a "
                    "check or a pin.",
                    "Entry attempt (roll): once per turn, while an entry is possible, you may "
                    "roll the Tquarc die first; having seen the value, enter with it or make "
                    "any other move (the value is then lost).",
                    "The right to enter lapses once all eight original back-rank squares have "
                    "been vacated.",
                    "Teleport (Tb7%): instead of a normal move, a Tquarc with value v leaps, "
                    "without capturing, to any empty square of its own colour in Tquad v. Only "
                    "on the move directly after the opponent's Tquarc moved (an ordinary move, "
                    "a teleport, an entry or a resurrection). The die is rolled again.",
                    "Two-square King: while your Tquarc is captured and not back on the board, "
                    "your King may once per game slide two squares in a straight line in any "
                    "of the eight directions. The middle square must be empty; it may capture "
                    "on the second square; check rules apply. A resurrected Tquarc suspends the "
                    "power until it is captured again.",
                    "Resurrection, only while your Tquarc is captured: a pawn promotion may "
                    "choose T (b8=T), or a Knight that moves onto a square of its own side's "
                    "colour on the opponent's back rank may become the Tquarc (Na8/T): "
                    f"{', '.join(KNIGHT_RESURRECTION_SQUARES[WHITE])} for White (light), "
                    f"{', '.join(KNIGHT_RESURRECTION_SQUARES[BLACK])} for Black (dark). The die "
                    "is rolled. A player never has more than one Tquarc on the board.",
                ),
            ),
        ),
        Section(
            "How the game ends",
            (
                (
                    "Checkmate wins.",
                    "Stalemate, insufficient material, the 50-move rule and threefold "
                    "repetition draw, as in FIDE chess. " + _material_sentence(),
                    "Players may resign or agree a draw.",
                ),
            ),
        ),
        Section(
            "Notation",
            (
                "FIDE notation plus T for the Tquarc. In the list of legal actions % marks a "
                "die roll; the record writes the value rolled after it.",
                Table(
                    ("Action", "Typed", "Recorded"),
                    (
                        ("Tquarc move", "Te4", "Te4"),
                        ("teleport", "Tb7%", "Tb7%4"),
                        ("entry", "Bg5/T", "Bg5/T%3"),
                        ("entry on castling", "O-O/Th1", "O-O/Th1%2"),
                        ("Knight resurrection", "Na8/T", "Na8/T%2"),
                        ("pawn promotion to T", "b8=T", "b8=T%1"),
                        ("entry attempt, then entry", "roll, Bg5/T", "roll Bg5/T%3"),
                        ("entry attempt, no entry", "roll, e4", "roll%2 e4"),
                    ),
                ),
            ),
        ),
    )


def piece_notes(rules: Variant) -> tuple[Block, ...]:
    return (
        "The Tquarc (Betza FAD) jumps, and captures as it moves. Like the Bishop it never "
        "changes the colour of its square, not even by teleporting. The King also has a "
        "two-square move while its Tquarc is lost (see Special actions).",
    )


def _material_sentence() -> str:
    """What counts as material, from the same table as the code (``TQUARC_MATERIAL``)."""
    words = either((w for w, _ in TQUARC_MATERIAL), "or")
    return words[0].upper() + words[1:] + " counts as material."
