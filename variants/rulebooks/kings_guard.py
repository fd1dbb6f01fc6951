"""King's Guard Chess, in words (RULES.md section 3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rulebook import Block, Section, Table

if TYPE_CHECKING:
    from ..base import Variant

INVENTOR = "Graeme Neatham"
SOURCE = "King's Guard Chess, The Chess Variant Pages"
TAGLINE = "Only pawns capture, and only with an assist."


def sections(rules: Variant) -> tuple[Section, ...]:
    return (
        Section(
            "Board and setup",
            (
                "FIDE rules unless stated otherwise, on the 8x8 board from the FIDE setup. "
                "The pawns form the King's guard: they move like Kings. There is no double "
                "step, no en passant and no castling. White moves first.",
            ),
        ),
        Section(
            "Capturing",
            (
                (
                    "Only pawns capture, and only with an assist.",
                    "A pawn may capture an enemy piece on any adjacent square, in any of the "
                    "eight directions, but only if a friendly non-pawn piece attacks that "
                    "square: a King, Queen, Rook, Bishop or Knight, with sliders blocked as "
                    "usual.",
                    "A pawn never assists. The other pieces move as in FIDE chess but never "
                    "capture.",
                ),
                "Example from the rule page: a Knight on c2 attacks b4 and d4, so a pawn on c3 "
                "may capture on either; a King on e8 cannot be taken by pawns on d7 and e7 "
                "while nothing else attacks e8.",
            ),
        ),
        Section(
            "Promotion",
            ("A pawn entering the far rank promotes to a Queen, Rook, Bishop or Knight: e8=Q.",),
        ),
        Section(
            "How the game ends",
            (
                "There is no check or checkmate: Kings may stand on attacked squares. The loss "
                "conditions are tested at the start of each player's turn; that player loses "
                "if:",
                (
                    "their King has been captured;",
                    "they have no pawns on the board;",
                    "they have no legal move.",
                ),
                "The 50-move rule (no capture, no pawn move) and threefold repetition draw the "
                "game; players may also resign or agree a draw.",
            ),
        ),
        Section(
            "Notation",
            (
                Table(
                    ("Action", "Written"),
                    (
                        ("a pawn stepping along its file", "e3"),
                        ("a pawn stepping off its file (names the file it leaves)", "de3"),
                        ("a pawn capture", "dxe4"),
                        ("a piece move", "Nf3, Qd3"),
                        ("promotion", "e8=Q"),
                    ),
                ),
            ),
        ),
    )


def piece_notes(rules: Variant) -> tuple[Block, ...]:
    return ("Every piece but the pawn moves as in FIDE chess, and none of them captures.",)
