"""The console: ``play``, ``record`` and ``roll``, run as the user runs them, through pipes
against a temporary database. Each answer of ``play`` ends with an empty line."""

from __future__ import annotations

import argparse
import io
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from listed import listed_actions

import variants
from bot.console import session as console
from variants.dice import VerifiableDice

# The hints name the command as this process runs it (``python -m``), so that they run
# as shown (``bot.console.words.program``).
PROGRAM = f"{shlex.quote(sys.executable)} -m bot.cli"


class Console:
    """``python -m bot.console.session play ...`` driven one command at a time through pipes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.console.session", "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def block(self) -> list[str]:
        """One answer: its lines up to the empty line that ends it."""
        assert self.proc.stdout is not None
        lines: list[str] = []
        while True:
            text = self.proc.stdout.readline()
            assert text, f"console ended: {self.proc.stderr.read() if self.proc.stderr else ''}"
            if text == "\n":
                return lines
            lines.append(text.rstrip("\n"))

    def send(self, *commands: str) -> list[str]:
        """Type ``commands`` (a command and its y/N answer, say); the answer."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(c + "\n" for c in commands))
        self.proc.stdin.flush()
        return self.block()

    def close(self) -> tuple[int, str]:
        """End the input; the exit code and whatever was printed after the last answer."""
        out, _ = self.proc.communicate(timeout=60)
        return self.proc.returncode, out


def dice_of(line: str) -> str:
    match = re.search(r"(\[[\d ]+\])", line)
    return match.group(1) if match else ""


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.console.session", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def board_lines(game: variants.Game, orientation: str) -> list[str]:
    """The text board and its legend, as the console prints them at the start (no empty
    line inside an answer)."""
    return [
        line for line in variants.text_board(game, orientation=orientation).splitlines() if line
    ]


def board_only(game: variants.Game, orientation: str) -> list[str]:
    """The text board as the console prints it after an action: without the legend."""
    text = variants.text_board(game, orientation=orientation)
    board = [line for line in text.split("\n\n")[0].splitlines() if line]
    lost = [line for line in text.splitlines() if line.startswith("Lost: ")]
    return board + lost


def test_hot_seat_game_matches_the_engine(tmp_path: Path) -> None:
    db = tmp_path / "console.sqlite3"
    con = Console("guardener", "--db", str(db), "--seed", "7", "--no-board")
    opening = con.block()
    assert opening[0] == "game 1"
    # An independent engine game on the same dice: the console must agree with it.
    engine = variants.new_game("guardener", dice=VerifiableDice("7", 1))
    assert opening[2:] == list(variants.describe(engine).lines)  # the status in words
    assert opening[2].startswith(f"White to move [{' '.join(map(str, engine.dice or ()))}]")
    assert con.send("moves") == [" ".join(engine.legal_moves())]
    for step in range(12):
        move = engine.legal_moves()[(step * 7) % len(engine.legal_moves())]
        mover = engine.turn.capitalize()
        recorded = engine.play(move)
        answer = con.send(move)
        assert re.fullmatch(rf"{mover} played {re.escape(recorded)}(, taking .*)?\.", answer[0])
        if engine.result is not None:
            assert answer[1].startswith("result ")
            break
        assert answer[1:] == list(variants.describe(engine).lines)
    refused = con.send("bogus!")
    assert refused[0].startswith("error: not an action in Guardener")
    assert con.send("moves") == [" ".join(engine.legal_moves())]  # still going after bad input
    history = con.send("history") + con.block()  # the record has an empty line of its own
    assert variants.replay("\n".join(history)).history == engine.history
    resigned = con.send("resign", "y")
    assert resigned[0].endswith("sure? [y/N]") and resigned[1].endswith("resigns.")
    assert resigned[2].startswith("result ")
    assert resigned[3] == f"Its record: {PROGRAM} record 1 --db {db}"
    assert resigned[4] == "Type again for a new game of Guardener Chess, or quit."
    assert con.send("e4")[0].startswith("error: the game is over")
    code, rest = con.close()
    assert code == 0 and rest == ""


def test_the_board_and_the_status_after_every_action(tmp_path: Path) -> None:
    con = Console("tquarchess", "--db", str(tmp_path / "b.sqlite3"), "--seed", "2")
    engine = variants.new_game("tquarchess", seed=2)
    opening = con.block()
    shown = board_lines(engine, "white")
    assert opening[2 : 2 + len(shown)] == shown  # from the side to act: White
    assert opening[2 + len(shown) :] == list(variants.describe(engine).lines)
    for move, mover in (("e4", "White"), ("e5", "Black"), ("Nf3", "White")):
        recorded = engine.play(move)
        answer = con.send(move)
        side = engine.turn  # the side now to act sits at the bottom
        changed = f"{mover} played {recorded}."
        assert answer == [changed, *board_only(engine, side), *variants.describe(engine).lines]
    assert answer[1].split() == list("hgfedcba")  # Black's view: the h-file on the left
    again = con.send("board")
    assert again[0] == "Tquarchess, game 1, 3 actions played"
    assert again[1:] == [*board_only(engine, "black"), *variants.describe(engine).lines]
    legend = con.send("legend")
    assert legend and legend == board_lines(engine, "black")[len(board_only(engine, "black")) :]
    assert legend[0].startswith("Pieces: ")
    code, rest = con.close()
    assert code == 0


def test_forced_placements_are_not_credited_to_the_player(tmp_path: Path) -> None:
    """Jepps Random: the pieces placed by themselves after an action follow it in the
    record (``Nf1 (Bg1) (Bh1)``); the console's line says which the player chose and
    which the rules placed."""
    db = str(tmp_path / "j.sqlite3")
    con = Console("jepps_random", "--db", db, "--seed", "3", "--no-board")
    con.block()
    lines = []
    for _ in range(12):  # the setup, first legal choice each time
        legal = con.send("moves")[0].split()
        lines.append(con.send(legal[0])[0])
    con.send("history")  # its tags, then after an empty line its moves
    record = "\n".join(con.block())
    con.close()
    assert "White played Nf1; placed by themselves: Bg1, Bh1." in lines, lines
    assert "Nf1, Bg1, Bh1" in record  # the record keeps its own notation
    assert not any("(" in line for line in lines)


def test_orientation_fixes_the_text_board(tmp_path: Path) -> None:
    con = Console("kings_guard", "--db", str(tmp_path / "o.sqlite3"), "--orientation", "white")
    engine = variants.new_game("kings_guard", seed=1)
    con.block()
    for move in ("e3", "e6"):
        engine.play(move)
        answer = con.send(move)
        assert answer[1 : 1 + len(board_only(engine, "white"))] == board_only(engine, "white")
    con.close()


def test_a_refused_action_names_the_rule_and_the_closest_actions(tmp_path: Path) -> None:
    result = run(
        "play", "kings_guard", "--db", str(tmp_path / "r.sqlite3"), "--no-board",
        stdin="exd5\nQd2\n",
    )  # fmt: skip
    answers = result.stdout.split("\n\n")
    game = variants.new_game("kings_guard", seed=1)
    for answer, text in zip(answers[1:3], ("exd5", "Qd2"), strict=True):
        refusal = game.explain(text)
        assert refusal is not None
        error, closest = answer.strip().splitlines()
        assert error == f"error: {refusal.message} ({text!r})"
        assert closest == f"closest legal: {', '.join(refusal.closest)}; `moves` lists all 26"
        assert "legal now" not in answer  # not the whole list: the rule and the nearest


def test_a_mistyped_command_is_named(tmp_path: Path) -> None:
    result = run(
        "play", "kings_guard", "--db", str(tmp_path / "m.sqlite3"), "--no-board",
        stdin="mvoes\nlegnd\nzzzzz\n",
    )  # fmt: skip
    answers = [a.strip().splitlines() for a in result.stdout.split("\n\n")[1:4]]
    assert answers[0][1] == "did you mean the command 'moves'? (help lists them all)"
    assert answers[1][1] == "did you mean the command 'legend'? (help lists them all)"
    assert not any("did you mean" in line for line in answers[2])  # nothing close


def test_arrow_keys_in_piped_input_are_not_control_characters(tmp_path: Path) -> None:
    result = run(
        "play", "kings_guard", "--db", str(tmp_path / "k.sqlite3"), "--no-board",
        stdin="\x1b[A\ne3\x1b[D\x1b[C\n\x1bOA\n",
    )  # fmt: skip
    assert "control characters" not in result.stdout
    assert "\nWhite played e3.\n" in result.stdout  # the escape sequences went; it was played
    assert "error" not in result.stdout


def test_resume_shows_the_same_dice(tmp_path: Path) -> None:
    db = str(tmp_path / "resume.sqlite3")
    con = Console("guardener", "--db", db, "--no-board")
    assert con.block()[0] == "game 1"
    last = ""
    for _ in range(5):
        moves = listed_actions(con.send("moves")[0])
        last = con.send(moves[-1])[1]  # the status headline, with the dice now showing
    code, rest = con.close()
    assert code == 0
    again = Console("--db", db, "--game", "1", "--no-board")
    opening = again.block()
    assert opening[0] == "game 1" and "game 1 resumed" in opening[1]
    assert dice_of(last) and f" {dice_of(last)}" in opening[2]  # the headline shows them
    moves = listed_actions(again.send("moves")[0])
    assert not again.send(moves[0])[0].startswith("error")
    again.close()


def test_draw_asks_first_and_quit_says_how_to_resume(tmp_path: Path) -> None:
    db = str(tmp_path / "d.sqlite3")
    result = run(
        "play", "tquarchess", "--db", db, "--no-board",
        stdin="e4\ndraw\nn\nquit\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    answers = [a.splitlines() for a in result.stdout.split("\n\n")]
    assert answers[1][0] == "White played e4."
    assert answers[2] == ["Both players agree to a draw: sure? [y/N]", "No draw; play on."]
    assert answers[3] == [f"Game 1 is stored. Resume it with: {PROGRAM} play --game 1 --db {db}"]
    assert "> " not in result.stdout  # no prompt when stdin is not a terminal
    drawn = run("play", "--db", db, "--game", "1", "--no-board", stdin="draw\nyes\n")
    answers = [a.splitlines() for a in drawn.stdout.split("\n\n")]
    assert answers[1][1:3] == ["Draw agreed.", "result 1/2-1/2 draw (agreement)"]


def test_resign_needs_a_yes(tmp_path: Path) -> None:
    db = str(tmp_path / "s.sqlite3")
    kept = run("play", "stone_garden", "--db", db, "--no-board", stdin="resign\n\nresign\nno\n")
    assert kept.stdout.count("White plays on.") == 2
    assert "resigns\n" not in kept.stdout
    gone = run("play", "--db", db, "--game", "1", "--no-board", stdin="resign\nY\n")
    assert "White resigns.\nresult 0-1 black wins (resignation)\n" in gone.stdout


def test_undo_takes_back_a_move_without_dice(tmp_path: Path) -> None:
    db = str(tmp_path / "u.sqlite3")
    result = run(
        "play", "kings_guard", "--db", db, "--no-board",
        stdin="e3\nd6\nundo\nundo\nundo\nc3\n",
    )  # fmt: skip
    answers = [a.splitlines() for a in result.stdout.split("\n\n")]
    assert answers[3][0] == "Black takes back d6."
    assert answers[3][1] == "Black to move"
    assert answers[4][0] == "White takes back e3."
    assert answers[5] == ["error: there is no move to take back"]
    assert answers[6][0] == "White played c3."
    record = run("record", "--db", db, "1").stdout
    assert variants.replay(record).history == ["c3"]


def test_undo_is_refused_once_a_die_was_rolled(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite3")
    result = run(
        "play", "tquarchess", "--db", db, "--seed", "4", "--no-board",
        stdin="roll\ne4\nundo\nundo\n",
    )  # fmt: skip
    answers = [a.strip() for a in result.stdout.split("\n\n")]
    assert answers[3].startswith("White takes back e4.")  # no die since e4
    assert answers[4] == (
        "error: roll%2 cannot be taken back: dice were rolled with it or since ([2]); a move "
        "can be taken back only while no die has been rolled with it or after it"
    )


def test_undo_never_works_where_dice_roll_every_turn(tmp_path: Path) -> None:
    """Refused at once, in the variant's words (the service is not asked), and ``help``
    says where undo works."""
    db = str(tmp_path / "g.sqlite3")
    result = run("play", "guardener", "--db", db, "--seed", "7", "--no-board", stdin="moves\n")
    first = result.stdout.split("\n\n")[1].split()[0]
    again = run("play", "--db", db, "--game", "1", "--no-board", stdin=f"{first}\nundo\nhelp\n")
    answers = again.stdout.split("\n\n")
    assert answers[2].strip() == (
        "error: in Guardener Chess dice are rolled at the start of every turn (two d4), so no "
        "move can be taken back: a move can be taken back only while no die has been rolled "
        "since it"
    )
    helped = answers[3].splitlines()
    assert (
        "Undo never works in Guardener Chess: dice are rolled at the start of every turn "
        "(two d4)." in helped
    )
    where = next(line for line in helped if line.startswith("Undo works "))
    for key in variants.names():  # every variant is placed, by what its rules say
        assert variants.rules(key).title in where


def test_options_for_a_new_game(tmp_path: Path) -> None:
    db = str(tmp_path / "opt.sqlite3")
    engine = variants.new_game(
        "jepps_random", options={"free_play": True}, dice=VerifiableDice("1", 1)
    )
    free = run(
        "play", "jepps_random", "--db", db, "--seed", "1", "--option", "free_play", "--no-board",
        stdin=engine.legal_moves()[0] + "\n",
    )  # fmt: skip
    assert free.returncode == 0, free.stderr
    assert "(options: free_play)" in free.stdout
    assert "\nBlack to place a piece on h8" in free.stdout  # Free Play: Black places next
    record = run("record", "--db", db, "1").stdout
    assert '[Options "free_play"]' in record.splitlines()  # as typed, not JSON
    assert variants.replay(record).options == {"free_play": True}
    bad = run("play", "jepps_random", "--db", db, "--option", "colour=red")
    assert bad.returncode == 2 and "colour" in bad.stderr
    unreadable = run("play", "jepps_random", "--db", db, "--option", "a b")
    assert unreadable.returncode == 2 and "cannot read the option" in unreadable.stderr
    resumed = run("play", "--db", db, "--game", "1", "--option", "free_play")
    assert resumed.returncode == 2 and "--option is for a new game" in resumed.stderr


def test_games_lists_the_stored_games(tmp_path: Path) -> None:
    db = str(tmp_path / "list.sqlite3")
    empty = run("games", "--db", db)
    assert empty.returncode == 0 and empty.stdout.startswith("No games stored yet.")
    assert f"(no database at {db})" in empty.stdout
    for reading in (("record", "1"), ("play", "--game", "1")):
        refused = run(*reading, "--db", db)  # nothing to read: said, and no file made
        assert refused.returncode == 1 and refused.stdout == "", refused.stdout
        assert (
            refused.stderr
            == f"error: there is no database at {db}; give --db PATH (or set CHESSGARDEN_DB)\n"
        )
    assert not Path(db).exists()
    run("play", "tquarchess", "--db", db, "--no-board", stdin="e4\ne5\nNf3\nundo\n")
    run("play", "kings_guard", "--db", db, "--no-board", stdin="e3\nresign\ny\n")
    listed = run("games", "--db", db)
    assert listed.returncode == 0, listed.stderr
    header, second, first, hint = listed.stdout.splitlines()
    columns = ["id", "variant", "status", "players", "moves", "last activity (UTC)"]
    assert re.split(r"\s{2,}", header.strip()) == columns
    cells = [re.split(r"\s{2,}", line.strip()) for line in (second, first)]
    assert cells[0][:5] == ["2", "kings_guard", "finished 1-0", "hot-seat (console)", "1"]
    assert cells[1][:5] == ["1", "tquarchess", "active", "hot-seat (console)", "2"]
    for row in cells:
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row[5])
    assert hint == f"Resume a console game with: {PROGRAM} play --game ID --db {db}"
    assert run("games", "--db", db, "--limit", "1").stdout.splitlines()[1].split()[0] == "2"
    assert run("games", "--db", db, "--limit", "0").returncode == 2


def test_record_prints_a_replayable_record(tmp_path: Path) -> None:
    db = str(tmp_path / "r.sqlite3")
    played = run("play", "jepps_random", "--db", db, "--no-board", stdin="moves\n")
    first_moves = played.stdout.split("\n\n")[1].split()
    run("play", "--db", db, "--game", "1", stdin=f"{first_moves[0]}\n")
    result = run("record", "--db", db, "1")
    assert result.returncode == 0, result.stderr
    game = variants.replay(result.stdout)
    assert len(game.history) == 1
    # the log's chain head is a tag of its own (issue 24), after the others
    with sqlite3.connect(db) as conn:
        (head,) = conn.execute("SELECT log_head FROM games WHERE id = 1").fetchone()
    tags = [line for line in result.stdout.splitlines() if re.match(r'\[[A-Za-z]+ "', line)]
    assert len(head) == 64 and tags[-1] == f'[Chain "{head}"]' and len(tags) >= 2
    assert run("record", "--db", db, "99").returncode == 1


def test_bad_arguments(tmp_path: Path) -> None:
    db = str(tmp_path / "b.sqlite3")
    unknown = run("play", "checkers", "--db", db)
    assert unknown.returncode == 2 and "unknown variant" in unknown.stderr
    missing = run("play", "--db", db, "--game", "5")
    assert missing.returncode == 2 and "no game 5" in missing.stderr
    nothing = run("play", "--db", db)
    assert nothing.returncode == 2
    sideways = run("play", "tquarchess", "--db", db, "--orientation", "left")
    assert sideways.returncode == 2 and "invalid choice: 'left'" in sideways.stderr


def test_roll() -> None:
    result = run("roll", "4d6kh3+2")
    assert result.returncode == 0
    assert re.fullmatch(r"4d6kh3 \[.*\] \+ 2 = \d+\n", result.stdout)
    spaced = run("roll", "2d6", "+", "1")
    assert spaced.returncode == 0 and spaced.stdout.startswith("2d6 [")
    bad = run("roll", "4d6kh9")
    assert (
        bad.returncode == 2 and bad.stderr.strip() == "error: kh9 keeps more dice than the 4 rolled"
    )


@pytest.mark.parametrize(
    ("orientation", "sides"),
    [(None, ["white"] * 3), ("mover", ["white", "black", "white"]), ("black", ["black"] * 3)],
)
def test_images_are_written_after_each_action(
    tmp_path: Path, orientation: str | None, sides: list[str]
) -> None:
    from renderers import render_png

    out = tmp_path / "png"
    turn = ["--orientation", orientation] if orientation else []
    result = run(
        "play", "tquarchess", "--db", str(tmp_path / "i.sqlite3"), "--seed", "4",
        "--images", str(out), *turn,
        stdin="e4\nzz\ne5\nboard\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == ["game1-0000.png", "game1-0001.png", "game1-0002.png"]
    told = f"Board images go to {out}/ (game1-0000.png, then one per action)."
    assert result.stdout.count(told) == 1, result.stdout
    game = variants.new_game("tquarchess", seed=4)
    for name, side in zip(files, sides, strict=True):
        if name != files[0]:
            game.play(["e4", "e5"][files.index(name) - 1])
        assert (out / name).read_bytes() == render_png(game, orientation=side), name


def test_add_subcommands_registers_play_games_record_roll() -> None:
    parser = argparse.ArgumentParser(prog="chessgarden")
    subparsers = parser.add_subparsers(dest="command")
    console.add_subcommands(subparsers)
    play = parser.parse_args(
        ["play", "guardener", "--db", "x", "--game", "3", "--seed", "4", "--option", "a=1"]
    )
    assert play.func is console.main_play
    assert (play.variant, play.db, play.game, play.seed, play.images, play.option) == (
        "guardener",
        "x",
        3,
        4,
        None,
        ["a=1"],
    )
    assert (play.show_board, play.orientation) == (True, None)
    games = parser.parse_args(["games", "--db", "z"])
    assert games.func is console.main_games and (games.db, games.limit) == ("z", 25)
    record = parser.parse_args(["record", "--db", "y", "12"])
    assert record.func is console.main_record and (record.db, record.id) == ("y", 12)
    roll = parser.parse_args(["roll", "d20+3"])
    assert roll.func is console.main_roll
    assert console.main_roll(argparse.Namespace(expression="d1+1")) == 0
    assert console.main_roll(argparse.Namespace(expression="d0")) == 2


async def test_in_process_session_with_a_prompt(tmp_path: Path) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    args = argparse.Namespace(
        variant="kings_guard",
        db=str(tmp_path / "p.sqlite3"),
        game=None,
        seed=1,
        images=None,
        option=[],
        show_board=False,
        orientation=None,
    )
    out = io.StringIO()
    code = await console._play(args, Terminal("help\ne3\nresign\nn\n"), out)  # noqa: SLF001
    assert code == 0
    text = out.getvalue()
    assert text.startswith("game 1\n")
    assert "\n> Type an action in notation" in text
    assert "\n> White played e3.\n" in text
    # On a terminal the y/N question is the prompt itself, not a line of its own.
    assert "\n> Black resigns the game: sure? [y/N] Black plays on.\n" in text
