"""Stone Garden Chess, in words (RULES.md section 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rulebook import Block, Section, Table
from ..status import ORDINALS
from ..stone_garden import (
    DEMOTIONS_TO_DRAW,
    FIFTY_MOVE_PLIES,
    NO_TURN_MOVES,
    TURN_WINDOW,
    TURN_WINDOW_ENEMY_PROMOTED,
)

if TYPE_CHECKING:
    from ..base import Variant

INVENTOR = "Lev Grigoriev"
SOURCE = "Stone Garden Chess, The Chess Variant Pages"
TAGLINE = "Six fairy pieces and a King that promotes."


def sections(rules: Variant) -> tuple[Section, ...]:
    return (
        Section(
            "Board and setup",
            (
                "The 8x8 board. The setup diagram of the rule page is lost; this one is our "
                "reading, consistent with every clue in the text:",
                Table(
                    ("Rank", "White", "Black"),
                    (
                        (
                            "back rank (a-h)",
                            "O R I P K I R O on rank 1",
                            "the mirror image on rank 8",
                        ),
                        ("second rank", "eight Horses on rank 2", "eight Horses on rank 7"),
                    ),
                ),
                "Ravens start facing forward (White's north, toward rank 8; Black's south). "
                "Horses never meet enemy Horses: a Horse always jumps two ranks forward, so "
                "White's stay on even ranks and Black's on odd ones. White moves first.",
            ),
        ),
        Section(
            "Raven turning",
            (
                (
                    "Instead of moving, a Raven may turn 90 degrees in place (Rd4^E), or step "
                    "one square sideways and turn to face the way she stepped (Re4^E). That "
                    "step may capture.",
                    f"Each Raven may turn at most once in any {TURN_WINDOW} consecutive moves "
                    f"of her side; once in {TURN_WINDOW_ENEMY_PROMOTED} while the opponent's "
                    "King is promoted. The limit counts per Raven: two different Ravens of one "
                    "side may turn on consecutive moves.",
                    f"No Raven may turn during her side's first {NO_TURN_MOVES} moves.",
                    "A Raven created by promotion faces forward.",
                ),
            ),
        ),
        Section(
            "The King's promotion",
            (
                "A King that moves into the opponent's half (ranks 5-8 for White, 1-4 for "
                "Black) is promoted (shown K+): it also moves as a xiangqi horse, one "
                "orthogonal step onto an empty square and then one diagonal step outward. It "
                "demotes when it moves back into its own half.",
            ),
        ),
        Section(
            "How the game ends",
            (
                (
                    "Checkmate wins; check rules apply.",
                    "Stalemate: the player with no legal move wins.",
                    "Threefold repetition ends the game at once, and the player who made the "
                    "repeating move loses (even when that move gave check).",
                    f"Draws: {FIFTY_MOVE_PLIES // 2} moves by each side with no capture and no "
                    f"Horse promotion; the {ORDINALS[DEMOTIONS_TO_DRAW]} demotion of either King; "
                    "only the two Kings left on the board.",
                ),
            ),
        ),
        Section(
            "Notation",
            (
                Table(
                    ("Action", "Written"),
                    (
                        ("a move, a capture", "Hc3, Oxa4, Ie3, Pd5, Re4"),
                        ("Horse promotion", "Hd8=P (P Policeman, O Ox, I Index, R Raven)"),
                        ("a Raven stepping aside and turning", "Re4^E"),
                        ("a Raven turning in place", "Rd4^E (her own square)"),
                    ),
                ),
                "Facings are compass letters: N toward rank 8, E toward the h-file, S toward "
                "rank 1, W toward the a-file.",
            ),
        ),
    )


def piece_notes(rules: Variant) -> tuple[Block, ...]:
    return (
        "The Horse promotes on the last rank to a Policeman, Ox, Index or Raven, never to a "
        "King. The Raven's moves turn with her facing ('ahead' is the way she faces). The King "
        "promotes in the enemy half (see The King's promotion). Values "
        "from the rule page: Horse 2 pawns, Index, Raven and Ox 4, Policeman 8.",
    )
