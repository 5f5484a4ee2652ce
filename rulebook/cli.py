"""The `rulebook` command: check, parse, format and describe rules files.

Only click is imported at start-up; the parser, pydantic, jsonschema and the checker are imported
inside the commands that need them, so `rulebook --help` answers at once.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from . import __version__

INTERNAL_ERROR = "E0999"


class _GuardedGroup(click.Group):
    """Turns an unexpected exception into a one-line internal-error diagnostic, not a traceback;
    finds the commands of other modules when they are asked for (`_ELSEWHERE`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_ELSEWHERE})

    def get_command(self, ctx: click.Context, name: str):
        if name not in self.commands and name in _ELSEWHERE:
            import importlib

            module, attribute = _ELSEWHERE[name]
            try:
                found = importlib.import_module(f".{module}", __package__)
            except ImportError:
                if module not in _OPTIONAL:
                    raise
                return None
            self.add_command(getattr(found, attribute), name)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand:  # "did you mean": among every command
            for name in _ELSEWHERE:
                self.get_command(ctx, name)
            return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a reader that went away is found here, not at exit
            return result
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # `rulebook ... | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(1)
        except MemoryError:
            click.echo("error[E0316]: the run went beyond its memory limit\n"
                       "  = help: `--max-memory` raises the limit of the commands that run games",
                       err=True)
            ctx.exit(1)
        except Exception as exc:  # the promise is: no input ever prints a Python traceback
            if os.environ.get("RULEBOOK_DEBUG"):
                raise
            click.echo(
                f"error[{INTERNAL_ERROR}]: internal error: {type(exc).__name__}: {exc}\n"
                "  = help: this is a bug in rulebook, not in your rules; "
                "set RULEBOOK_DEBUG=1 to see where it happened",
                err=True,
            )
            ctx.exit(1)


@click.group(cls=_GuardedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="rulebook")
def main() -> None:
    """Check, parse and format `.rules` files of the rulebook language."""


# ----------------------------------------------------------------------------- output helpers
def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _summary_line(summary: dict, checked: int | None) -> str:
    parts = [_plural(summary["errors"], "error"), _plural(summary["warnings"], "warning")]
    head = f"checked {_plural(checked, 'file')}: " if checked is not None else ""
    if not summary["errors"] and not summary["warnings"]:
        return head + "no problems found"
    return head + ", ".join(parts)


def _report(diagnostics, fmt: str, *, checked: int | None = None, err: bool = False,
            known_sources: dict[str, str] | None = None, **extra) -> None:
    """Print diagnostics as text or JSON, with a summary (to stderr when stdout carries output)."""
    from .validator.diagnostics import render_json, render_text, summarize

    diagnostics = list(diagnostics)
    if fmt == "json":
        if checked is not None:
            extra["files_checked"] = checked
        click.echo(render_json(diagnostics, **extra), err=err)
        return
    if diagnostics:
        stream = sys.stderr if err else sys.stdout
        color = stream.isatty() and not os.environ.get("NO_COLOR")
        # Only text that was read as rules is quoted: no file is read again to show a line.
        click.echo(render_text(diagnostics, known_sources or {}, color=color), err=err)
        click.echo(err=err)
    click.echo(_summary_line(summarize(diagnostics), checked), err=err)


def _has_errors(diagnostics) -> bool:
    return any(d.is_error for d in diagnostics)


FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
    show_default=True,
    help="How to print diagnostics: text, JSON, SARIF 2.1.0 (code scanning) or GitHub "
         "workflow annotations.",
)


def _codes(values: tuple[str, ...]) -> list[str] | None:
    """`--select A --select B,C` -> [A, B, C]; None when the option was not given."""
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


# ----------------------------------------------------------------------------------- check
@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@FORMAT_OPTION
@click.option("--assumptions", is_flag=True,
              help="Also list every declaration marked `assumed`, with its reason.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Show only the warnings with these codes or code prefixes (`W02`, "
                   "`W0202,W0205`); replaces the configuration's `select`.")
@click.option("--ignore", multiple=True, metavar="CODES",
              help="Never show the warnings with these codes or prefixes; replaces the "
                   "configuration's `ignore`. Errors are always shown.")
def check(paths: tuple[str, ...], fmt: str, assumptions: bool, select: tuple[str, ...],
          ignore: tuple[str, ...]) -> None:
    """Check rules files and folders of rules; exit 1 if any error is found.

    Warnings are chosen by --select/--ignore, by `[tool.rulebook]` in pyproject.toml or a
    rulebook.toml (the nearest, upwards from each file), and silenced on a line or a block by
    `# rulebook: ignore[CODE]`; `rulebook explain CODE` describes a code (docs/lint.md).
    """
    from .validator.check import list_assumptions
    from .validator.lint import bad_selectors, lint_paths

    if assumptions and fmt in ("sarif", "github"):
        raise click.UsageError("--assumptions is printed with --format text or json only")
    select_codes, ignore_codes = _codes(select), _codes(ignore)
    wrong = bad_selectors(select_codes, ignore_codes)
    if wrong:
        raise click.UsageError("; ".join(wrong))
    with _few_collections():
        result = lint_paths(list(paths), select_codes, ignore_codes)
    if result.config_problems:  # a configuration that cannot be used is a usage error
        _report(result.config_problems, "text", err=True)
        sys.exit(2)
    diagnostics = [*result.diagnostics, *_empty_folders(paths)]
    if fmt in ("sarif", "github"):
        from .cli_lint import report_for_ci

        report_for_ci(diagnostics, fmt, result.checked)
        sys.exit(1 if _has_errors(diagnostics) else 0)
    found = list_assumptions(list(paths)) if assumptions else []
    extra = {"assumptions": found} if assumptions else {}
    _report(diagnostics, fmt, checked=result.checked, known_sources=result.sources, **extra)
    if assumptions and fmt == "text":
        click.echo()
        click.echo(_assumptions_text(found))
    sys.exit(1 if _has_errors(diagnostics) else 0)


@contextmanager
def _few_collections():
    """Python's collector of reference cycles, run rarely while a check runs.

    A check keeps the tree of every file it reads until it ends (tens of thousands of objects
    per file, none of them garbage), and the collector walks every new object at least once,
    the old ones again at each full collection: a third of a cold check of rulesets/. During
    the check it runs once a million objects more are alive, never over all of them: cycles
    that die (a caught exception and its frames) are still freed, a little later, and what
    outlives the check is freed by the next full collection after it."""
    import gc

    young, middle, old = gc.get_threshold()
    if young:  # (0: the collector is off, and stays off)
        gc.set_threshold(max(young, _MANY), middle, _NEVER)
    try:
        yield
    finally:
        # What the check made joins the old objects without a walk: with the thresholds put
        # back, the next collection of young objects would otherwise walk it all at once.
        gc.freeze()
        gc.unfreeze()
        gc.set_threshold(young, middle, old)


_MANY = 1_000_000  # new objects alive before the young ones are collected
_NEVER = 2 ** 30  # collections of the middle generation before a full one


def _empty_folders(targets) -> list:
    """A folder named on the command line that holds no rules file is a mistake, not a pass."""
    from .validator.diagnostics import Diagnostic

    from .grammar.source import path_kind
    from .validator.check import rules_files_under

    out = []
    for target in targets:
        if path_kind(target) == "folder" and not rules_files_under(target):
            out.append(Diagnostic("E0008", f"{target} holds no `.rules` files", file=str(target),
                                  hint="name a `.rules` file or a folder that contains some"))
    return out


def _assumptions_text(found) -> str:
    if not found:
        return "no assumed declarations"
    lines = [f"{_plural(len(found), 'assumed declaration')}:"]
    for a in found:
        lines.append(f"  {a['file']}:{a['line']}: {a['name']}: {a['reason']}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------- parse
@main.command()
@click.argument("file", type=click.Path())
def parse(file: str) -> None:
    """Print the syntax tree of FILE as JSON (with source spans)."""
    import json

    from .grammar.parser import parse_text, read_source
    from .validator.diagnostics import DiagnosticError
    from .validator.schema import validate_program

    try:
        text = read_source(file)
        program = parse_text(text, file)
    except DiagnosticError as e:
        _report(e.diagnostics, "text", err=True, known_sources=e.sources)
        sys.exit(1)
    problems = validate_program(program, file)
    if problems:
        _report(problems, "text", err=True, known_sources={file: text})
        sys.exit(1)
    click.echo(json.dumps(program.model_dump(mode="json"), indent=2, ensure_ascii=False))


# ---------------------------------------------------------------------------------- schema
@main.command()
def schema() -> None:
    """Print the JSON Schema (Draft 2020-12) of the syntax tree."""
    import json

    from .validator.schema import ast_schema

    click.echo(json.dumps(ast_schema(), indent=2, ensure_ascii=False))


# ------------------------------------------------------------------------------------- fmt
@main.command()
@click.argument("targets", nargs=-1, required=True, type=click.Path())
@click.option("--check", "check_only", is_flag=True,
              help="Change nothing; exit 1 and list the files that are not in canonical form.")
@click.option("--write", is_flag=True, help="Rewrite files that are not in canonical form.")
def fmt(targets: tuple[str, ...], check_only: bool, write: bool) -> None:
    """Print FILES in canonical form (or check or rewrite them)."""
    if check_only and write:
        raise click.UsageError("use either --check or --write, not both")
    from .files import write_atomically
    from .grammar.formatter import format_source
    from .grammar.parser import read_source
    from .validator.check import expand_paths
    from .validator.diagnostics import DiagnosticError

    names, problems = expand_paths(targets)
    files = [Path(n) for n in names]
    problems.extend(_empty_folders(targets))
    changed: list[Path] = []
    sources: dict[str, str] = {}
    for index, path in enumerate(files):
        try:
            text = read_source(path)
            formatted = format_source(text, str(path))
        except DiagnosticError as e:
            problems.extend(e.diagnostics)
            sources.update(e.sources)
            continue
        if check_only or write:
            if formatted != text:
                try:
                    if write:
                        write_atomically(path, formatted)
                except DiagnosticError as e:
                    problems.extend(e.diagnostics)
                    continue
                changed.append(path)
            continue
        if len(files) > 1:  # several files: say where each one starts, as `head` does
            if index:
                click.echo()
            click.echo(f"# ==> {path} <==")
        click.echo(formatted, nl=False)
    if problems:
        _report(problems, "text", err=not (check_only or write), known_sources=sources)
    for path in changed:
        click.echo(f"{'reformatted' if write else 'would reformat'} {path}")
    if check_only and changed:
        click.echo(f"{_plural(len(changed), 'file')} not in canonical form; "
                   "`rulebook fmt --write` rewrites them", err=True)
    if check_only and not changed and not problems:
        click.echo(f"{_plural(len(files), 'file')} already formatted")
    sys.exit(1 if problems or (check_only and changed) else 0)


# ------------------------------------------------------- commands written in other modules
# Imported when one of them is asked for (or `--help` lists them): `check` and `fmt` need none.
# name -> (module, command); a module that cannot be imported for want of an extra's package
# leaves its commands out, as the game commands always did.
_ELSEWHERE = {
    "lsp": ("cli_lsp", "lsp"),  # the language server (the `lsp` extra)
    "play": ("cli_game", "play"), "simulate": ("cli_game", "simulate"),  # game commands
    "test": ("cli_game", "test_cmd"), "replay": ("cli_game", "replay"),
    "explain": ("cli_lint", "explain"),  # defined beside the CI renderings
    "docs": ("cli_docs", "docs"),
    "serve": ("cli_serve", "serve"),  # the table in the browser: docs/web.md
    "compare": ("cli_report", "compare"),
}
_OPTIONAL = ("cli_game",)  # modules whose ImportError leaves their commands out
