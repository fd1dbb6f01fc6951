"""An AST check that the Discord adapter's sentences go through the catalogue (issue 27).

Two rules, over every module of ``bot/discord`` except the operator's (``OPERATOR_MODULES``):

- **sinks**: what reaches a Discord message (an embed's title, description, field or
  footer, a post's content, a note, a button's label, a refusal) holds no English word
  that did not come through a marker: every string literal (or the fixed part of an
  f-string) with a word of two letters or more, inside the argument, must sit inside
  ``_()``, ``ngettext()`` or ``N_()``;
- **sentences anywhere**: a literal that holds words (two or more in a row) sits
  inside a marker, wherever it is, unless it is one of the places that are not the
  reader's (``NOT_FOR_READERS``): a docstring, a log line, an exception raised for the
  code or the log, an audit-log ``reason=``, the delivery worker's retry notes. A
  ``Permanent`` refusal is stored and shown on /games and /board (``STORED_ERRORS``): even
  raised, its words are the reader's (it takes a code: ``bot.service.failure_words``).

Literal parts that are not words are fine anywhere: `` · ``, ``\\n``, ``**{x}**``, mentions,
links (``https://``, ``attachment://``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

MARKERS = {"_", "N_", "ngettext"}
# Modules that speak to the operator on a terminal or in the log, never to a Discord user:
# the doctor and the run command (CLI output), the metrics endpoint, the shutdown steps'
# log lines, and the catalogue tool itself.
OPERATOR_MODULES = {
    "doctor.py": "chessgarden doctor: the operator's terminal",
    "run.py": "chessgarden run/commands: the operator's terminal and log",
    "metrics.py": "Prometheus metric names and help texts",
    "shutdown.py": "the shutdown steps' log lines",
    "catalogue.py": "the catalogue tool's own output",
    "translate.py": "the translator (its words are the markers' definitions)",
}
# Calls whose string arguments reach a Discord message, and which arguments do.
SINK_CALLS = {
    "add_field": ("name", "value"),
    "set_field_at": ("name", "value"),
    "set_footer": ("text",),
    "set_author": ("name",),
    "Embed": ("title", "description"),
    "Post": ("content", "note", "failure"),
    "Button": ("label",),
    "send": ("content",),
    "send_message": ("content",),
    "edit_message": ("content",),
    "edit": ("content",),
    "create_thread": ("content",),
    "open_thread": ("starter",),
    "refuse": (1,),  # answers.refuse(interaction, text)
    "error_post": (0,),
    "error_embed": (0,),
    "HelpPage": (0, 1),
    # discord.ui's other items: a select's options, a modal and its inputs
    "SelectOption": ("label", "description"),
    "Select": ("placeholder",),
    "ChannelSelect": ("placeholder",),
    "RoleSelect": ("placeholder",),
    "UserSelect": ("placeholder",),
    "Modal": ("title",),
    "TextInput": ("label", "placeholder", "default"),
    # a Choice made while the bot runs (an autocomplete's answer): the translator never
    # sees it, unlike the tree's choices (module constants and decorators, ``TREE_CALLS``)
    "RuntimeChoice": ("name",),
}
# Places whose words are not for the reader (the "sentences anywhere" rule skips them).
NOT_FOR_READERS = {
    "log calls": "log.debug/info/warning/error/exception: the operator's log",
    "raise": "exceptions raised for the code (an unexpected state) or the delivery log",
    "reason=": "Discord's audit log, read by the server's admins in Discord's own UI "
    "(kept English: the same words as the bot's log)",
    "Transient": "the delivery worker's notes on a try that may work later (the log, and "
    "the row's retry note, never shown; a Permanent refusal is shown: STORED_ERRORS)",
    "withdraw reason": "the game's log entry (stored; English like every log entry)",
    "owe_now": "the outbox row's stored reason (a diagnostic for the log)",
    "command tree": "app_commands.command/describe/Choice: the tree's strings, translated by "
    "the Translator when the commands are synced (test_the_tree_is_in_the_catalogues)",
    "comparisons": "a literal compared with a value is a code, not text",
}
# Functions whose returned words are for the log (the shutdown steps' notes).
LOG_FUNCTIONS = {"_stop_delivery", "_stop_scheduler", "_stop_computer", "shutdown_steps"}
TREE_CALLS = {"command", "describe", "Choice", "choices", "rename", "Group"}
WORD = re.compile(r"[A-Za-z]{2,}")
SENTENCE = re.compile(r"[A-Za-z']{2,}[,;:]?\s+[A-Za-z']{2,}")
# Not words to translate: links, mentions, custom ids, and proper names.
NOT_WORDS = re.compile(r"(https?|attachment)://\S*|<[@#&!:a-z]+[^>]*>|cg:[a-z-]+:?|Glicko-2")
LOG_NAMES = {"debug", "info", "warning", "error", "exception", "critical"}
DIAGNOSTICS = {"Transient", "owe_now", *TREE_CALLS}
# Exceptions whose words are stored and shown to readers (the delivery worker's refusals,
# on /games and /board): raised or not, they are checked like any other literal.
STORED_ERRORS = {"Permanent"}


@dataclass(frozen=True)
class Problem:
    where: str
    line: int
    text: str
    rule: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.rule}: {self.text!r}"


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal_parts(node: ast.AST) -> list[tuple[int, str]]:
    """The fixed text of a string literal or f-string (not its ``{values}``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(node.lineno, node.value)]
    if isinstance(node, ast.JoinedStr):
        return [
            (node.lineno, part.value)
            for part in node.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        ]
    return []


def _words(text: str) -> bool:
    return bool(WORD.search(NOT_WORDS.sub(" ", text)))


def _sentence(text: str) -> bool:
    return bool(SENTENCE.search(NOT_WORDS.sub(" ", text)))


class _Walker(ast.NodeVisitor):
    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[Problem] = []
        self.skip: set[int] = set()  # ids of literal nodes inside markers or exempt places
        self.depth = 0  # inside how many function bodies (a Choice there is made at run time)

    def _exempt(self, node: ast.AST) -> None:
        for inner in ast.walk(node):
            self.skip.add(id(inner))

    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node)
        func = node.func
        if name in MARKERS and isinstance(func, ast.Name):
            self._exempt(node)
        elif isinstance(func, ast.Attribute) and name in LOG_NAMES:
            self._exempt(node)  # log.warning(...)
        elif name == "Choice" and self.depth > 0:  # an autocomplete's answer, at run time
            self._check_sink(node, "RuntimeChoice")
        elif name in DIAGNOSTICS:
            self._exempt(node)
        else:
            for keyword in node.keywords:
                if keyword.arg == "reason":
                    self._exempt(keyword.value)
            self._check_sink(node, name)
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        stored = isinstance(node.exc, ast.Call) and _call_name(node.exc) in STORED_ERRORS
        if node.exc is not None and not stored:
            self._exempt(node.exc)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in LOG_FUNCTIONS:
            self._exempt(node)
        for decorator in node.decorator_list:  # @app_commands.describe(...): the tree's
            self._exempt(decorator)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Compare(self, node: ast.Compare) -> None:
        self._exempt(node)  # `label == "prev"`: a code, not text
        self.generic_visit(node)

    def _check_sink(self, node: ast.Call, name: str) -> None:
        wanted = SINK_CALLS.get(name)
        if not wanted:
            return
        args: list[ast.AST] = []
        for key in wanted:
            if isinstance(key, int):
                if key < len(node.args):
                    args.append(node.args[key])
            else:
                args += [k.value for k in node.keywords if k.arg == key]
        for arg in args:
            for inner in self._unmarked(arg):
                self.skip.add(id(inner))  # reported here, not again as a sentence
                for line, text in _literal_parts(inner):
                    if _words(text):
                        self.problems.append(Problem(self.where, line, text, f"{name}() text"))

    def _unmarked(self, node: ast.AST) -> list[ast.AST]:
        """The literals in ``node`` that are not inside a marker call."""
        found: list[ast.AST] = []

        def visit(item: ast.AST) -> None:
            if isinstance(item, ast.Call) and _call_name(item) in MARKERS:
                return
            if isinstance(item, ast.Compare):
                return
            if isinstance(item, ast.Constant | ast.JoinedStr):
                found.append(item)
                if isinstance(item, ast.Constant):
                    return
            for child in ast.iter_child_nodes(item):
                visit(child)

        visit(node)
        return found


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def check_source(source: str, where: str) -> list[Problem]:
    tree = ast.parse(source)
    walker = _Walker(where)
    walker.visit(tree)
    problems = list(walker.problems)
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if id(node) in walker.skip or id(node) in docs:
            continue
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                walker.skip.add(id(part))  # judged with the whole f-string
        if isinstance(node, ast.Constant | ast.JoinedStr):
            for line, text in _literal_parts(node):
                if _sentence(text):
                    problems.append(Problem(where, line, text, "sentence outside the catalogue"))
    # the marker's name must stay the marker: no local variable called "_"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            problems.append(Problem(where, node.lineno, "_", "assigns the marker's name"))
        if isinstance(node, ast.arg) and node.arg == "_":
            problems.append(Problem(where, node.lineno, "_", "an argument named like the marker"))
    return sorted(set(problems), key=lambda p: (p.line, p.text))


def adapter_files(root: Path) -> list[Path]:
    """The modules of ``bot/discord`` that speak to Discord's users."""
    paths = sorted((root / "bot/discord").rglob("*.py"))
    return [p for p in paths if p.name not in OPERATOR_MODULES]


def check_tree(root: Path) -> list[Problem]:
    problems: list[Problem] = []
    for path in adapter_files(root):
        where = path.relative_to(root).as_posix()
        problems += check_source(path.read_text(encoding="utf-8"), where)
    return problems


# ----- the service's errors (bot/service) ---------------------------------------------------
#
# The service says its refusals as ``ServiceError``s, which the adapter shows to the user.
# A refusal said with a plain literal reaches a German user in English: every message an
# error is built with (``raise NotAllowed(...)``, ``return NotFound(...)``, a default
# message of an error class) must be ``said(...)`` (``bot.i18n.said``), or a value that
# comes from elsewhere (a name, an attribute: e.g. the engine's refusal, already a sentence).

SERVICE_DIRS = ("bot/service", "bot/tournament")
# The errors whose message is for the user: the service's, and /roll's (a ValueError).
USER_ERRORS = ("ServiceError", "DiceExpressionError")


def service_error_names(*sources: str) -> set[str]:
    """``USER_ERRORS`` and every class in ``sources`` that derives from one."""
    classes = [
        node
        for source in sources
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef)
    ]
    names = set(USER_ERRORS)
    grew = True
    while grew:
        grew = False
        for node in classes:
            if node.name not in names:
                bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if bases & names:
                    names.add(node.name)
                    grew = True
    return names


def _unsaid(node: ast.AST) -> list[tuple[int, str]]:
    """The worded literal text in ``node`` that is not inside ``said(...)``."""
    if isinstance(node, ast.Call) and _call_name(node) in ("said", "said_n"):
        return []
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return [(line, text) for line, text in _literal_parts(node) if _words(text)]
    found: list[tuple[int, str]] = []
    for child in ast.iter_child_nodes(node):
        found += _unsaid(child)
    return found


def _message_defaults(args: ast.arguments) -> list[ast.expr]:
    """The default value of a parameter called ``message``, if it has one."""
    positional = [*args.posonlyargs, *args.args]
    pairs = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    return [default for arg, default in pairs if arg.arg == "message"]


def check_service_source(source: str, where: str, errors: set[str]) -> list[Problem]:
    """Errors of the service built with a message that is not ``said(...)``."""
    tree = ast.parse(source)
    problems: list[Problem] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) in errors:
            messages = node.args[:1] + [k.value for k in node.keywords if k.arg == "message"]
            for message in messages:
                for line, text in _unsaid(message):
                    rule = f"{_call_name(node)}() message not said()"
                    problems.append(Problem(where, line, text, rule))
        if isinstance(node, ast.ClassDef) and node.name in errors:
            for item in ast.walk(node):  # def __init__(self, message: str = "..."): a default
                if isinstance(item, ast.FunctionDef):
                    for default in _message_defaults(item.args):
                        for line, text in _unsaid(default):
                            rule = f"{node.name} default message not said()"
                            problems.append(Problem(where, line, text, rule))
    return sorted(set(problems), key=lambda p: (p.line, p.text))


def service_files(root: Path) -> list[Path]:
    return [p for name in SERVICE_DIRS for p in sorted((root / name).rglob("*.py"))]


def check_service_tree(root: Path) -> list[Problem]:
    files = service_files(root)
    errors = service_error_names(*(path.read_text(encoding="utf-8") for path in files))
    problems: list[Problem] = []
    for path in files:
        where = path.relative_to(root).as_posix()
        problems += check_service_source(path.read_text(encoding="utf-8"), where, errors)
    return problems
