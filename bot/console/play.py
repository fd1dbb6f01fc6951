"""One console game at this keyboard: hot-seat, or against the computer (``Session``).

``chessgarden play`` (``bot.console.session``) opens the service and hands over to a
``Session``, which prints the game and reads one command per line. What it prints:

- at the start: ``game <id>``, a line saying who plays, the board, its legend (once;
  ``legend`` prints it again) and the status in words;
- after each action: one line of what changed (``White played Nxe4, taking Black's
  Pawn.``), the board and the status. Against the computer the board is always seen
  from the player's side, the computer is named ``the computer (level N)``, and after
  the player's action the computer answers in the same block: its status headline
  (its dice), ``The computer (level N) is thinking...``, its action, then one board
  and the player's status. Each answer ends with an empty line;
- at the end: the result, the record command, and ``again`` (a new game of the same
  variant; against the computer with the colours swapped) or ``quit``.

``quit``, Ctrl-D and Ctrl-C in an unfinished game print the command that resumes it,
written so that it runs as shown (``bot.console.words.program``).
"""

from __future__ import annotations

import asyncio
import difflib
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import variants
from bot.console.games import (
    BLACK_ID,
    WHITE_ID,
    new_computer_game,
    new_hot_seat_game,
    player_id,
    player_label,
    resumed,
)
from bot.console.terminal import LineReader, settle_interrupt, wrap_width, wrapped
from bot.console.words import (
    capitalized,
    computer_name,
    db_words,
    lost_pieces,
    named_line,
    other_side,
    player_tags,
    program,
    split_board,
    tagged,
    taken_words,
    undo_everywhere,
    undo_here,
    undo_refusal,
)
from bot.service import (
    GameService,
    GameView,
    IllegalAction,
    InvalidState,
    Outcome,
    RenderUnavailable,
    ServiceError,
    TimeUp,
)
from bot.service.clock import days_text, time_left_text

COMMANDS: dict[str, str] = {
    "moves": "list the legal actions now (Tab completes them as you type)",
    "board": "show the board and the status again",
    "legend": "what the letters and marks on the board mean",
    "history": "the game's record so far",
    "undo": "take back the last move (only while no die has been rolled since it)",
    "resign": "the side to move resigns (asks y/N first)",
    "draw": "both players agree a draw (asks y/N first)",
    "rules": "the complete rules of this variant",
    "again": "once the game is over: a new game of the same variant",
    "help": "this list",
    "quit": "leave; the game stays stored and can be resumed",
}
# What changes against the computer.
COMPUTER_COMMANDS: dict[str, str] = {
    "undo": "not against the computer: it is for two players at one keyboard",
    "resign": "you resign (asks y/N first)",
    "draw": "offer the computer a draw; it accepts or declines at once",
    "again": "once the game is over: a new game, same level, you take the other colour",
}
ACTION_HINT = "an action in notation (e.g. e4, Nf3, reroll, pass, roll)"
YES = ("y", "yes")


def close_command(text: str) -> str | None:
    """The console command a refused word was probably meant as (``mvoes``: ``moves``)."""
    word = text.strip().lower()
    if not word.isalpha() or word in COMMANDS:
        return None
    found = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.75)
    return found[0] if found else None


class Session:
    """One hot-seat game at this keyboard, or one against the computer."""

    def __init__(
        self,
        service: GameService,
        stdin: TextIO,
        stdout: TextIO,
        images: str | None = None,
        *,
        show_board: bool = True,
        orientation: str | None = None,
        db: str | None = None,
    ) -> None:
        self.service = service
        self.stdout = stdout
        self.images = Path(images) if images else None
        self.show_board = show_board
        self.orientation = orientation
        self.db = db
        self.game_id = 0
        self.variant = ""
        self.title = ""
        self.options: dict[str, Any] = {}
        self.days: int | None = None
        self.computer: str | None = None  # the computer's side, in a game against it
        self.computer_level: int | None = None
        self.legal: Sequence[str] = ()  # Outcome.legal: each text written when read
        self.lost: Counter[tuple[str, str]] = Counter()
        self.legend_due = False  # the legend goes under the next board printed
        self.warned_images = False
        self.told_images = False  # where the images go: said with the first one
        self.reader = LineReader(stdin, stdout, self.words)
        self.width = wrap_width(stdout)

    # ----- output ----------------------------------------------------------------

    def say(self, line: str = "") -> None:
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def tell(self, line: str) -> None:
        """A line of prose: wrapped between words on a terminal, whole elsewhere."""
        for part in wrapped(line, self.width):
            self.say(part)

    def error(self, message: str) -> None:
        self.tell(f"error: {message}")

    def words(self) -> tuple[str, ...]:
        """What Tab completes: the legal actions now, then the commands."""
        return (*self.legal, *COMMANDS)

    # ----- who is who ----------------------------------------------------------------

    @property
    def mine(self) -> str | None:
        """The player's side against the computer (``None`` in hot-seat play)."""
        return other_side(self.computer) if self.computer is not None else None

    @property
    def the_computer(self) -> str:
        return computer_name(self.computer_level)

    def actor(self, colour: str) -> str:
        """Who acted, to start a sentence: "White", "You", "The computer (level 2)"."""
        if self.computer is None:
            return colour.capitalize()
        return capitalized(self.the_computer) if colour == self.computer else "You"

    def owners(self) -> dict[str, str]:
        """Each side's pieces in the possessive: "Black's", or "your" and "the
        computer's" against the computer."""
        if self.computer is None:
            return {"white": "White's", "black": "Black's"}
        return {self.computer: "the computer's", other_side(self.computer): "your"}

    # ----- starting ----------------------------------------------------------------

    async def start(
        self,
        variant: str | None,
        game_id: int | None,
        seed: int | None,
        options: dict[str, Any] | None = None,
        days: int | None = None,
        *,
        computer: tuple[int, str] | None = None,
    ) -> GameView | None:
        """``computer``: (level, the player's colour) for a new game against it."""
        try:
            if game_id is not None:
                view = await resumed(self.service, game_id, variant)
                if view is None:
                    return None
            elif computer is not None:
                if variant is None:
                    print("error: name a variant to play against the computer", file=sys.stderr)
                    return None
                if days is not None:
                    print("error: a game against the computer has no time limit", file=sys.stderr)
                    return None
                level, mine = computer
                view = await new_computer_game(self.service, variant, level, mine, options, seed)
            else:
                if variant is None:
                    print("error: name a variant to play, or --game ID to resume", file=sys.stderr)
                    return None
                view = await new_hot_seat_game(self.service, variant, options, days, seed)
        except ServiceError as error:
            print(f"error: {error}", file=sys.stderr)
            return None
        await self.begin(view, resumed=game_id is not None)
        self.say()
        return view

    async def begin(self, view: GameView, *, resumed: bool) -> None:
        """Introduce the game: its id, who plays, the board with its legend, the status;
        then the computer's first action if it is to act."""
        self.game_id = view.id
        self.variant = view.variant
        self.title = view.variant_title
        self.options = dict(view.options)
        self.days = view.time_days
        self.computer = view.computer
        self.computer_level = view.computer_level
        self.legal = ()
        self.lost = Counter()
        self.say(f"game {view.id}")
        what = "resumed" if resumed else "begins"
        options_said = f" (options: {_options_words(view.options)})" if view.options else ""
        who = (
            f"you play {self.mine} against {self.the_computer}"
            if self.mine is not None
            else "White and Black play at this keyboard"
        )
        self.tell(
            f"{view.variant_title}{options_said}, game {view.id} {what}: {who}. "
            "Type help for the commands, rules for the rules."
        )
        view = await self.on_time(view)
        self.legend_due = self.show_board
        await self.show(view)
        await self.write_image(view)
        if self.computers_turn(view):
            await self.computer_moves()

    async def again(self) -> None:
        """A new game of the same variant and options (against the computer: the same
        level, the player on the other side)."""
        view = await self.service.view(game_id=self.game_id)
        if not view.is_over:
            self.error("again starts a new game once this one is over; resign or agree a draw")
            return
        if self.computer is not None and self.mine is not None:
            assert self.computer_level is not None
            new = await new_computer_game(
                self.service, self.variant, self.computer_level, self.computer, self.options, None
            )
        else:
            new = await new_hot_seat_game(self.service, self.variant, self.options, self.days, None)
        await self.begin(new, resumed=False)

    # ----- the computer ------------------------------------------------------------

    def computers_turn(self, view: GameView) -> bool:
        return self.computer is not None and view.status == "active" and view.turn == self.computer

    async def computer_moves(self) -> None:
        """The computer acts while it is its turn (it may act twice running: a re-roll),
        each action printed like a player's; the board after its last."""
        while True:
            self.say(f"{capitalized(self.the_computer)} is thinking...")
            outcome = await self.service.computer_move(game_id=self.game_id)
            if outcome is None:
                return
            assert self.computer is not None
            await self.after(outcome, self.computer)
            if not self.computers_turn(outcome.game):
                return

    # ----- time ------------------------------------------------------------------

    def clock(self, view: GameView) -> str:
        """``Clock: White has 2 days 3 hours left (3 days per move).`` for a timed game
        (issue 13); ``''`` untimed."""
        if view.deadline is None:
            return ""
        left = time_left_text(view.deadline, self.service.clock.now())
        if view.turn is None:  # a challenge: its deadline is when it expires (no side acts)
            return f"Clock: the challenge expires in {left}." if view.status == "challenge" else ""
        return f"Clock: {view.turn.capitalize()} has {left} left ({days_text(view.time_days)})."

    async def on_time(self, view: GameView) -> GameView:
        """If the side to act has run out of time, end the game now (one scheduler pass)
        and say so; the game as it stands after that."""
        if view.status != "active" or view.deadline is None:
            return view
        if self.service.clock.now() < view.deadline:
            return view
        for event in await self.service.run_due():
            if event.game.id == self.game_id:
                self.say(event.messages[0])
        return await self.service.view(game_id=self.game_id)

    # ----- the loop ------------------------------------------------------------------

    async def loop(self) -> int:
        while True:
            try:
                line = self.reader.read("> ")
            except KeyboardInterrupt:
                await settle_interrupt()
                self.say("")
                await self.leave()
                return 130
            if line is None:  # the end of input (Ctrl-D)
                await self.leave()
                return 0
            if not line:
                continue
            if line.lower() in ("quit", "exit"):
                await self.leave()
                return 0
            try:
                await self.handle(line)
            except asyncio.CancelledError:  # Ctrl-C while it worked (the computer thinking)
                # asyncio.run cancels this task on Ctrl-C; an action being stored is either
                # in or out, and the game is resumed as the store has it.
                self.say("")
                await self.leave()
                return 130
            except IllegalAction as error:
                self.refused(error, line)
            except TimeUp as error:  # the side to act ran out of time: the game ends on time
                self.error(str(error))
                view = await self.on_time(await self.service.view(game_id=self.game_id))
                await self.show(view)
            except ServiceError as error:
                self.error(str(error))
            self.say()

    async def leave(self) -> None:
        """The command that resumes the game, if it is not over."""
        if self.game_id == 0:
            return
        try:
            over = (await self.service.view(game_id=self.game_id)).is_over
        except ServiceError:
            over = False
        if not over:
            self.say(self.resume_hint())

    def resume_hint(self) -> str:
        return (
            f"Game {self.game_id} is stored. Resume it with: "
            f"{program()} play --game {self.game_id}{db_words(self.db)}"
        )

    async def handle(self, command: str) -> None:
        word = command.lower()
        service, gid = self.service, self.game_id
        if word in ("help", "?"):
            self.help()
        elif word == "moves":
            moves = await service.legal_moves(game_id=gid)
            self.legal = moves
            self.say(" ".join(moves) if moves else "(no legal moves)")
        elif word == "board":
            view = await service.view(game_id=gid)
            self.say(f"{view.variant_title}, game {view.id}, {_actions(view.ply)} played")
            await self.show(view, board=True)
            await self.write_image(view)
        elif word == "legend":
            await self.legend()
        elif word == "history":
            history = await service.history(game_id=gid)
            record = tagged(history.record, player_tags(self.computer, self.computer_level))
            self.say(record.rstrip("\n"))
        elif word == "rules":
            self.stdout.write(variants.rulebook_text(self.variant))
        elif word == "again":
            await self.again()
        elif word == "undo":
            await self.undo()
        elif word == "resign":
            await self.resign()
        elif word == "draw":
            await self.draw()
        else:
            await self.act(command)

    def help(self) -> None:
        self.say(f"Type {ACTION_HINT}, or a command:")
        for name, what in COMMANDS.items():
            if self.computer is not None:
                what = COMPUTER_COMMANDS.get(name, what)
            self.say(f"  {name:<8} {what}")
        if self.computer is None:
            self.tell(undo_here(self.variant))
            self.tell(undo_everywhere())
        if self.reader.readline is not None:
            self.say("Tab completes actions and commands; Up and Down recall earlier lines.")

    async def legend(self) -> None:
        text = await self.service.text_board(game_id=self.game_id)
        for line in split_board(text.board).legend:
            self.say(line)

    def confirm(self, question: str) -> bool:
        """A y/N question; anything but y or yes (or the end of input) is no."""
        if not self.reader.interactive:
            self.say(question.rstrip())
        answer = self.reader.read(question, remember=False)
        return answer is not None and answer.lower() in YES

    # ----- commands that change the game -------------------------------------------

    async def act(self, command: str) -> None:
        service, gid = self.service, self.game_id
        view = await service.view(game_id=gid)
        if view.is_over:
            self.error(f"the game is over: {self.result_line(view)}; type again or quit")
            return
        side = str(view.turn)
        outcome = await service.act(
            game_id=gid,
            user_id=await self.mover(view),
            text=command,
            render=False,
            expected_ply=view.ply,
        )
        await self.after(outcome, side)
        if self.computers_turn(outcome.game):
            await self.computer_moves()

    async def undo(self) -> None:
        if self.computer is not None:
            self.error("undo is for two players at one keyboard, not against the computer")
            return
        view = await self.service.view(game_id=self.game_id)
        if view.is_over:
            raise_over(view, self)
        never = undo_refusal(self.variant)
        if never is not None:
            self.error(never)
            return
        # The player who made the last move asks: the side not to move now.
        asker = BLACK_ID if view.turn == "white" else WHITE_ID
        outcome = await self.service.undo(game_id=self.game_id, user_id=asker)
        self.legal = ()
        await self.show(outcome.game, changed=outcome.messages[0].rstrip("."))

    async def resign(self) -> None:
        mover = await self.mover()
        if self.computer is not None:
            who, resigns, plays = "You", "You resign", "You play on."
        else:
            who = player_label(mover)
            resigns, plays = f"{who} resigns", f"{who} plays on."
        if self.confirm(f"{resigns} the game: sure? [y/N] "):
            outcome = await self.service.resign(game_id=self.game_id, user_id=mover)
            self.legal = ()
            await self.show(outcome.game, changed=resigns, moved=False)
        else:
            self.say(plays)

    async def draw(self) -> None:
        mover = await self.mover()
        if self.computer is not None:  # the computer judges the offer, as on Discord
            if not self.confirm(f"Offer {self.the_computer} a draw: sure? [y/N] "):
                self.say("No draw offered; play on.")
                return
            answer = await self.service.offer_draw_to_computer(user_id=mover, game_id=self.game_id)
            name = capitalized(self.the_computer)
            if answer.accepted:
                self.legal = ()
                await self.show(
                    answer.outcome.game, changed=f"{name} accepts the draw", moved=False
                )
            else:
                self.say(f"{name} declines the draw; play on.")
            return
        # Both players are at this keyboard: one agreement, one commit.
        if self.confirm("Both players agree to a draw: sure? [y/N] "):
            outcome = await self.service.agree_draw(game_id=self.game_id, user_id=mover)
            self.legal = ()
            await self.show(outcome.game, changed="Draw agreed", moved=False)
        else:
            self.say("No draw; play on.")

    def refused(self, error: IllegalAction, text: str) -> None:
        """The rule that refuses the action and the closest legal actions (contract C2)."""
        refusal = error.refusal
        if refusal is None:
            self.error(str(error))
            return
        shown = text if len(text) <= 40 else text[:37] + "..."
        self.error(f"{refusal.message} ({shown!r})")
        command = close_command(text)
        if command is not None:
            self.tell(f"did you mean the command {command!r}? (help lists them all)")
        if refusal.closest:
            more = f"; `moves` lists all {len(self.legal)}" if len(self.legal) > 5 else ""
            self.tell(f"closest legal: {', '.join(refusal.closest)}{more}")

    async def after(self, outcome: Outcome, side: str) -> None:
        """What an action by ``side`` changed, then the board and the status."""
        self.legal = outcome.legal
        chosen, forced = variants.rules(self.variant).split_recorded(outcome.recorded or "")
        played = f"{self.actor(side)} played {chosen}"
        if forced:  # not the player's: the rules placed them
            played += f"; placed by themselves: {', '.join(forced)}"
        await self.show(outcome.game, changed=played)
        await self.write_image(outcome.game)

    # ----- showing the game ----------------------------------------------------------

    async def show(
        self,
        view: GameView,
        *,
        changed: str | None = None,
        board: bool = False,
        moved: bool = True,
    ) -> None:
        """One line of what changed (with the pieces it took), the text board (unless
        ``--no-board``; ``board``: even then; not when nothing ``moved``, nor while the
        computer is about to act),
        the legend under the game's first board, and the status in words. No empty line inside: an empty
        line ends an answer."""
        text = await self.service.text_board(game_id=view.id, orientation=self.text_side())
        view = text.game
        parts = split_board(text.board)
        lost = lost_pieces(parts.lost)
        if changed is not None:
            taken = taken_words(self.variant, self.lost, lost, self.owners())
            self.tell(f"{changed}{taken}.")
        self.lost = lost
        if view.status == "active" and not self.legal:
            self.legal = await self.service.legal_moves(game_id=view.id)
        waiting = self.computers_turn(view) and not board
        if (self.show_board and moved or board) and not waiting:
            for line in parts.board:
                self.say(line)
            if parts.lost:
                self.say(parts.lost)
            if self.legend_due:
                self.legend_due = False
                for line in parts.legend:
                    self.say(line)
        if view.status != "active":
            self.say(self.result_line(view))
            self.say(f"Its record: {program()} record {view.id}{db_words(self.db)}")
            self.tell(self.again_line())
            return
        lines = text.status.lines
        if self.computer is not None:
            name, own = self.the_computer, "the computer's"
            lines = tuple(named_line(line, self.computer, name, own) for line in lines)
            if view.turn == self.computer:
                # Its turn: its headline alone (the other lines speak to the side to act
                # as "you"), and only if it shows the dice it moves with.
                lines = lines[:1] if text.status.dice or not waiting else ()
        for line in lines:
            self.tell(line)
        if view.deadline is not None:
            self.tell(self.clock(view))

    def again_line(self) -> str:
        if self.mine is not None:
            return (
                f"Type again for a new game against {self.the_computer} (you play "
                f"{other_side(self.mine)} this time), or quit."
            )
        return f"Type again for a new game of {self.title}, or quit."

    def result_line(self, view: GameView) -> str:
        if view.status != "finished":
            return f"result * game {view.status}" + (
                f" ({view.result_reason})" if view.result_reason else ""
            )
        if view.winner is None:
            outcome = "draw"
        elif self.computer is None:
            outcome = f"{view.winner} wins"
        else:
            won = self.the_computer if view.winner == self.computer else "you"
            return f"result {view.result} {view.winner} wins ({view.result_reason}): {won} won"
        return f"result {view.result} {outcome} ({view.result_reason})"

    def text_side(self) -> str | None:
        """The side at the bottom of the text board (``None``: the side to act). Against
        the computer, the player's unless ``--orientation`` says otherwise."""
        if self.orientation == "mover":
            return None
        return self.orientation or self.mine

    def image_side(self) -> str | None:
        """The side at the bottom of the images (``None``: the side to act): the player's
        against the computer, else White, unless ``--orientation`` says otherwise, so that
        a game's PNGs do not turn every ply."""
        if self.orientation == "mover":
            return None
        return self.orientation or self.mine or "white"

    async def mover(self, view: GameView | None = None) -> int:
        view = view or await self.service.view(game_id=self.game_id)
        if view.is_over:
            raise_over(view, self)
        # Against the computer, the one typing is always the player (who may resign
        # while the computer is to act).
        side = self.mine if self.mine is not None else str(view.turn)
        return player_id(side)

    async def write_image(self, view: GameView) -> None:
        """With ``--images``: the board as a PNG, named by the game and the ply."""
        if self.images is None:
            return
        try:
            image = (
                await self.service.board(game_id=self.game_id, orientation=self.image_side())
            ).image
        except RenderUnavailable as error:
            if not self.warned_images:
                self.error(f"no images: {error}")
                self.warned_images = True
            return
        try:
            self.images.mkdir(parents=True, exist_ok=True)
            path = self.images / f"game{view.id}-{view.ply:04d}.png"
            path.write_bytes(image or b"")
        except OSError as error:
            self.error(f"cannot write the image: {error}")
            return
        if not self.told_images:
            self.told_images = True
            self.tell(f"Board images go to {self.images}/ ({path.name}, then one per action).")


def _actions(count: int) -> str:
    return f"{count} action{'' if count == 1 else 's'}"


def _options_words(options: dict[str, Any]) -> str:
    from bot.options import options_text

    return options_text(options)


def raise_over(view: GameView, session: Session) -> None:
    raise InvalidState(f"the game is over: {session.result_line(view)}; type again or quit")
