"""Jepps Random Chess, in words (RULES.md section 5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..jepps_random import FACE_NAMES, FREE_PLAY_FIRST_MOVE, FREE_PLAY_NUMBERING
from ..rulebook import Block, Section, Table

if TYPE_CHECKING:
    from ..base import Variant

INVENTOR = "Simon E. Jepps"
SOURCE = "Jepps Random Chess, jeppsquare.me/jrc"
TAGLINE = "The back ranks are set up with two d6."


def sections(rules: Variant) -> tuple[Section, ...]:
    if FREE_PLAY_NUMBERING == "roman":
        free_record = (
            "i. Na1 Kh8 ii. Bb1 Rg8 ... then 1. e4: the entries are labelled i-viii and the "
            "game proper starts at move 1"
        )
    else:
        free_record = (
            f"1. Na1 Kh8 2. Bb1 Rg8 ... then {FREE_PLAY_FIRST_MOVE}. e4: play continues from "
            f"move {FREE_PLAY_FIRST_MOVE}"
        )
    return (
        Section(
            "Board and setup",
            (
                "The 8x8 board. Pawns stand on ranks 2 and 7 as usual; the back ranks are set "
                "up with two six-sided dice before play, then FIDE chess is played from that "
                "position.",
            ),
        ),
        Section(
            "The setup dice",
            (
                Table(
                    ("Die", "Piece"),
                    tuple((str(v), name) for v, name in FACE_NAMES.items()),
                ),
                (
                    "White fills a1, b1, ... h1 in order, one roll per square. The two dice "
                    "offer two piece types; you place one that is still in stock (K, Q, R, R, "
                    "B, B, N, N). A 6 is a free choice.",
                    "On a double you may take the offered piece or roll again (reroll). When "
                    "the dice offer nothing you can place, they are rolled again by "
                    "themselves.",
                    "The Bishops must end on opposite colours: a placement that would make "
                    "that impossible is refused. A piece that is the only choice left (the "
                    "last piece, a Bishop with one square of its colour left, or all pieces "
                    "left of one kind) is placed by itself.",
                ),
                "The mediator roll, made for Black after White has finished:",
                Table(
                    ("Dice", "Black", "Written"),
                    (
                        ("both even", "mirrors White file by file", "Mirror"),
                        ("both odd", "reverses White's order (a<->h)", "Reverse"),
                        (
                            "one odd, one even",
                            "sets up with the dice, from a8 to h8",
                            "its own string",
                        ),
                        ("a double", "may re-roll (reroll) or accept the parity result", ""),
                    ),
                ),
                "Free Play (the option free_play, chosen when the game is created): no "
                "mediator; the players alternate one placement each, White a1, Black h8, White "
                "b1, Black g8, and so on.",
            ),
        ),
        Section(
            "King relocation (instead of castling)",
            (
                "There is no castling. Once per game, a King that has never moved may relocate "
                "to any vacant home-rank square of its own colour: Kg1. The path need not be "
                "clear, but the King may not relocate when in check, onto an attacked square, "
                "or across an attacked vacant home-rank square between its origin and its "
                "destination. It is never adjacent, so it cannot be read as a King step.",
            ),
        ),
        Section(
            "How the game ends",
            (
                "As in FIDE chess: checkmate wins; stalemate, insufficient material, the "
                "50-move rule and threefold repetition draw; players may resign or agree a "
                "draw. En passant and promotion are as in FIDE chess.",
            ),
        ),
        Section(
            "Notation",
            (
                Table(
                    ("Action", "Written"),
                    (
                        ("a placement", "Na1"),
                        ("the mediator's answers", "Mirror, Reverse"),
                        ("a re-roll", "reroll"),
                        ("a King relocation", "Kg1"),
                        ("White's setup in the record", "[2 4] Na1, [3 5] Bb1, [1 2] Kc1, ..."),
                        ("Black's answer, on the line below", "[2 4] Mirror"),
                        ("the game that follows", "1. e4 e5 2. Nf3"),
                        ("Free Play", free_record),
                    ),
                ),
                "Each roll stands in brackets before the piece it placed; a piece with no "
                "roll before it was placed by itself.",
            ),
        ),
    )


def piece_notes(rules: Variant) -> tuple[Block, ...]:
    return ("The pieces are those of FIDE chess; only their starting squares change.",)
