#!/usr/bin/env python3
"""Run the hostile corpus against the `rulebook` command and classify every run.

    python tests/hostile/probe.py [--only NAME]... [--timeout S] [--parallel N] [--json OUT]

Every run is a separate process (stdin closed unless the attack feeds it input, a time limit,
an address-space limit, a cap on the size of files it writes, its own process group, which is
killed on timeout). The corpus is copied into a temporary folder first, where the probe also
creates what cannot be committed: symlinks, fifos, sparse multi-gigabyte files, very large
generated rules files and save files, and freshly forged saves (`make_saves.py`).

Each run is classified:

  ok               a result, or a located diagnostic with a stable code
  timeout          more than --timeout seconds of CPU time, no CPU used for 6 s (blocked on a
                   fifo, say), or more than 3 * timeout + 10 s of wall-clock time
  processes        more than 32 processes at once (simulate --jobs forking without a bound)
  memory           MemoryError, or killed (SIGKILL) near the address-space limit
  crash            killed by another signal (SIGSEGV: C stack overflow, ...), "Fatal Python error"
  flood            more output than --output-cap, or a file written beyond it (SIGXFSZ)
  traceback        a Python traceback in the output
  internal-error   error code E0199 or E0999
  leak             the output holds text of a file outside the corpus (/etc/passwd, /proc/version,
                   the corpus's outside/ folder) or of the environment
  terminal-escape  the output holds a control character (ESC, NUL, backspace, bell, ...) that a
                   rules file or a save wrote (terminal injection)
  unlocated        the command failed without any diagnostic code, or a diagnostic names no
                   file (`<input>: error[...]`)
  accepted         the command exited 0 where it must refuse: a rules file that `check` rejects,
                   a forged save, an out-of-range argument
  hidden-info      play shows a player what they may not know (fixed default seed, undo after a
                   secret card was drawn, hand-over screen leaves the scrollback)
  unsafe-write     a save overwrote another game or was left half-written
  control          a valid input the probe relies on (an untouched save, a rules file marked
                   `# expect: ok`) was refused, or the probe's own arguments were

The probe prints a table of the runs that are not ok, a summary, and exits 1 if any run is not ok
(2 if the probe itself could not run).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import fnmatch
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

GIB = 1024 ** 3
MIB = 1024 ** 2
# Seat 1 is a person unless told otherwise, every other seat a bot: `--seat 1=random` makes every
# seat a bot (naming seats the game does not have is an error).
BOTS = ["--seat", "1=random"]

# Text that only a file outside the corpus (or the environment) holds.
LEAK_MARKERS = (
    "root:x:0:0",            # /etc/passwd
    "daemon:x:1:1",          # /etc/passwd
    "Linux version",         # /proc/version
    "S3CR3T-0UTSIDE",        # tests/hostile/outside/*
    "S3CR3T_0UTSIDE",        # the option name of outside/secret_game.rules
    "S3CR3T-ENV-MARKER",     # the environment of every run (/proc/self/environ)
)
ENV_MARKER = "S3CR3T-ENV-MARKER-5d1e"

CODE = re.compile(r"\b[EW]\d{4}\b")
# Control characters a rules file or a save could send to the terminal (ESC sequences, NUL,
# backspace, bell, C1 controls); tab, line feed and carriage return are fine.
TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
INTERNAL = re.compile(r"\bE0(199|999)\b")
MEMORY_TEXT = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
CRASH_TEXT = ("Fatal Python error", "Segmentation fault", "core dumped")

KINDS = ("ok", "timeout", "processes", "memory", "crash", "flood", "traceback", "internal-error",
         "leak", "terminal-escape", "unlocated", "accepted", "hidden-info", "unsafe-write",
         "control")


# ------------------------------------------------------------------------------- the runs
@dataclass
class Run:
    item: str                       # corpus item, e.g. rulesets/repeat_2pow53_empty
    label: str                      # the command, e.g. play
    argv: list[str]
    cwd: Path
    attack: str = ""
    stdin: bytes | None = None      # None: stdin is /dev/null
    must_refuse: bool = False       # exit 0 is a failure ("accepted")
    fsize: int | None = None        # override of the cap on written files
    use_pty: bool = False
    escape_ok: bool = False         # ESC in the output is expected (a terminal was asked for)
    after: Callable[["Result"], tuple[str, str] | None] | None = None  # extra verdict
    before: Callable[[], None] | None = None                            # preparation


@dataclass
class Result:
    run: Run
    kind: str = "ok"
    detail: str = ""
    rc: int | None = None
    signal: int | None = None
    seconds: float = 0.0
    output: str = ""
    excerpt: list[str] = field(default_factory=list)


class Probe:
    def __init__(self, args):
        self.args = args
        self.timeout = args.timeout
        self.tmp = Path(tempfile.mkdtemp(prefix="rulebook-hostile-"))
        self.h = self.tmp / "h"           # the copied corpus
        self.work = self.tmp / "work"     # cwd of game commands; saves land here
        self.cli = self.tmp / "cli"       # files made for the command-line attacks
        self.python = self._python()
        self.rb = [self.python, "-m", "rulebook"]
        self.env = self._env()
        self.setup_notes: list[str] = []
        self.code = REPO  # the source tree whose rulesets/ the command-line attacks use
        if args.snapshot or args.code:
            self._use_code(Path(args.code).resolve() if args.code else None)

    # ------------------------------------------------------------------------ setting up
    def _python(self) -> str:
        venv = REPO / ".venv" / "bin" / "python"
        return str(venv) if venv.exists() else sys.executable

    def _env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RULEBOOK_")}
        env.update({
            "XDG_CACHE_HOME": str(self.tmp / "cache"),
            "NO_COLOR": "1", "COLUMNS": "100", "LINES": "40", "TERM": "xterm",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": env.get("PYTHONIOENCODING", ""),
            "HOSTILE_PROBE_SECRET": ENV_MARKER,
        })
        if not env["PYTHONIOENCODING"]:
            del env["PYTHONIOENCODING"]
        return env

    def _use_code(self, tree: Path | None) -> None:
        """Run another source tree (or a copy of this one, frozen while the probe runs): a
        `rulebook` package is assembled from its folders and put first on PYTHONPATH."""
        if tree is None:
            tree = self.tmp / "code"
            for d in ("rulebook", "grammar", "validator", "interpreter", "rulesets"):
                shutil.copytree(REPO / d, tree / d,
                                ignore=shutil.ignore_patterns("__pycache__"))
        shim = self.tmp / "shim" / "rulebook"
        shim.mkdir(parents=True)
        for f in (tree / "rulebook").iterdir():
            if f.name != "__pycache__":
                os.symlink(f, shim / f.name)
        for sub in ("grammar", "validator", "interpreter"):
            os.symlink(tree / sub, shim / sub)
        self.env["PYTHONPATH"] = str(shim.parent)
        self.code = tree

    def setup(self) -> None:
        for d in (self.work, self.cli, self.tmp / "cache"):
            d.mkdir(parents=True, exist_ok=True)
        shutil.copytree(HERE / "rulesets", self.h / "rulesets", symlinks=True)
        shutil.copytree(HERE / "outside", self.h / "outside", symlinks=True)
        shutil.copytree(HERE / "saves", self.h / "saves", symlinks=True)
        links = self.h / "rulesets" / "links"
        links.mkdir(exist_ok=True)
        _symlink("/etc/passwd", links / "passwd.rules")
        _symlink("/proc/version", links / "version.rules")
        _symlink("../../outside/secret.rules", links / "secret.rules")
        _symlink("../../outside/secret_game.rules", links / "secret_game.rules")
        _symlink("../..", links / "up")                  # a folder link leaving the tree
        _symlink("/dev/zero", links / "zero.rules")
        _symlink("/", links / "root")
        os.mkfifo(links / "fifo.rules")
        with open(links / "huge.rules", "wb") as f:      # sparse: 4 GiB of nothing on disk
            f.truncate(4 * GIB)
        self._fresh_saves()
        self._generated_rules()

    def _fresh_saves(self) -> None:
        """Forge the saves again with the current engine (digests as it computes them)."""
        out = self.h / "saves"
        cmd = [self.python, str(HERE / "make_saves.py"), "--out", str(out), "--large"]
        try:
            p = subprocess.run(cmd, cwd=self.work, env=self.env, capture_output=True, text=True,
                               timeout=max(120, self.timeout * 4), stdin=subprocess.DEVNULL)
            if p.returncode != 0:
                tail = (p.stdout + p.stderr).strip().splitlines()[-3:]
                self.setup_notes.append("make_saves.py failed; the committed saves are used: "
                                        + " | ".join(tail))
                shutil.rmtree(out)
                shutil.copytree(HERE / "saves", out)
        except subprocess.TimeoutExpired:
            self.setup_notes.append("make_saves.py timed out; the committed saves are used")

    def _generated_rules(self) -> None:
        """Rules files too large (or too repetitive) to commit; written into rulesets/generated."""
        g = self.h / "rulesets" / "generated"
        g.mkdir(exist_ok=True)
        header = 'game "Generated" {\n    players 2\n}\n'
        scenario = 'scenario "runs" {\n    players 2\n    play to end with random\n}\n'

        def write(name, attack, commands, body):
            text = f"# attack: {attack}\n# commands: {commands}\n{header}{body}"
            (g / name).write_text(text, encoding="utf-8")

        # 980 KB in one expression (issue: 37 s and 1.9 GB before E0007).
        terms = (980_000 - 200) // 4
        write("one_expression_980kb.rules", "a 980 KB file that is one long sum; the parser "
              "must refuse or finish quickly", "check fmt parse",
              "const total = " + " + ".join(["1"] * terms) + "\n")
        # A flat 900 KB list literal (brackets not nested; the parser sees 150,000 items).
        write("list_literal_150k.rules", "one list literal of 150,000 elements (beyond the "
              "100,000 element limit) in a const", "check play",
              "const xs = [" + ", ".join(["1"] * 150_000) + "]\n"
              "setup {\n    log \"{size(xs)}\"\n}\n")
        # Many near-miss names: every unknown name asks difflib for the closest of 20,000.
        n = 20_000
        consts = "".join(f"const name_{i:05d} = {i}\n" for i in range(n))
        uses = "".join(f"    log \"{{nmae_{i:05d}}}\"\n" for i in range(n))
        write("unknown_names_20k.rules", "20,000 constants and 20,000 misspelled uses: each "
              "E0201 suggestion compares against every declared name (quadratic)", "check",
              consts + "setup {\n" + uses + "}\n")
        # 50,000 declarations whose names differ in the last letter only.
        write("many_declarations_30k.rules", "30,000 small declarations in 600 KB (the "
              "checker, the formatter and the printed syntax tree handle each)",
              "check fmt parse play",
              "".join(f"const c{i} = {i}\n" for i in range(30_000)) + scenario)
        # A table with 40,000 rows of 100 copies each: 4,000,000 components.
        rows = "".join(f"    {i} | 100\n" for i in range(40_000))
        write("table_rows_40k_x100.rules", "a table of 40,000 rows with count 100: four "
              "million components from a 600 KB file", "check play simulate test",
              "record C { v: int }\ntable cs of C {\n    v | count\n" + rows + "}\n"
              "setup {\n    log \"{size(cs)}\"\n}\n" + scenario)
        # A chain of 300 variants, each extending the previous one.
        chain = g / "chain"
        chain.mkdir(exist_ok=True)
        (chain / "v000.rules").write_text(header + "setup {\n    log \"base\"\n}\n" + scenario)
        for i in range(1, 300):
            (chain / f"v{i:03d}.rules").write_text(
                f'variant "V{i}" extends "v{i - 1:03d}.rules" {{\n}}\n'
                f"global g{i}: int = {i}\n")
        (chain / "v300.rules").write_text(
            "# attack: a chain of 300 variants each extending the previous one\n"
            "# commands: check play test\n"
            'variant "V300" extends "v299.rules" {\n}\n' + scenario)

    # --------------------------------------------------------------------------- corpus
    def items(self) -> list[tuple[str, list[Run]]]:
        items: list[tuple[str, list[Run]]] = []
        items += self._rules_items()
        items += self._save_items()
        items += self._cli_items()
        only = self.args.only
        if only:
            items = [(n, r) for n, r in items
                     if any(o in n or fnmatch.fnmatch(n, o) for o in only)]
        if self.args.commands:
            wanted = self.args.commands.split(",")
            items = [(n, [r for r in runs if r.label.split()[0] in wanted]) for n, runs in items]
            items = [(n, runs) for n, runs in items if runs]
        return items

    def _rules_items(self):
        root = self.h / "rulesets"
        out = []
        for f in sorted(root.rglob("*.rules")):
            if "links" in f.relative_to(root).parts or not f.is_file() or f.is_symlink():
                continue
            head = f.read_text(encoding="utf-8", errors="replace").splitlines()[:8]
            meta = {}
            for line in head:
                m = re.match(r"#\s*(attack|commands|args|expect):\s*(.*)", line)
                if m:
                    meta[m.group(1)] = m.group(2).strip()
            if "attack" not in meta:
                continue  # a helper (the base game of a variant, ...), not an attack
            rel = f.relative_to(root)
            name = "rulesets/" + str(rel.with_suffix(""))
            commands = meta.get("commands", "check play simulate test").split()
            extra = meta.get("args", "").split()
            runs = [self._rules_run(name, c, str(rel), extra, meta["attack"], root)
                    for c in commands]
            if meta.get("expect") == "ok":  # a control: every command must succeed
                for r in runs:
                    r.after = _must_succeed("ok")
            out.append((name, runs))
        return out

    def _rules_run(self, name, command, rel, extra, attack, root) -> Run:
        seats = BOTS
        argv = {
            "check": [*self.rb, "check", rel],
            "fmt": [*self.rb, "fmt", rel],
            "parse": [*self.rb, "parse", rel],
            "test": [*self.rb, "test", rel],
            "play": [*self.rb, "play", rel, "--seed", "1", *seats, *extra,
                     "--save-to", str(self.work / (name.replace("/", "_") + ".save.json"))],
            "simulate": [*self.rb, "simulate", rel, "--games", "2", "--seed", "1", *extra],
        }.get(command)
        if argv is None:
            raise SystemExit(f"{rel}: unknown command {command!r} in `# commands:`")
        return Run(name, command, argv, root, attack)

    def _save_items(self):
        root = self.h / "saves"
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
        out = []
        seats = BOTS
        for entry in manifest["saves"]:
            name = "saves/" + entry["file"].removesuffix(".json")
            save = entry["file"]
            ruleset = entry["ruleset"]
            expect = entry.get("expect", "refuse")
            explicit = entry.get("expect_with_ruleset", expect)
            attack = entry["attack"]
            runs = [
                Run(name, "replay", [*self.rb, "replay", save], root, attack,
                    must_refuse=expect == "refuse", after=_must_succeed(expect)),
                Run(name, "play --load", [*self.rb, "play", ruleset, "--load", save, *seats,
                                          "--save-to", str(self.work / "loaded.save.json")],
                    root, attack, must_refuse=explicit == "refuse",
                    after=_must_succeed(explicit)),
            ]
            if entry.get("refuse_with_accept_flag"):
                runs.append(Run(name, "replay --accept-changed-rules",
                                [*self.rb, "replay", save, "--accept-changed-rules"],
                                root, attack, must_refuse=True))
            out.append((name, runs))
        return out

    # ---------------------------------------------------------------- command-line attacks
    def _cli_items(self):
        rb, cli, work = self.rb, self.cli, self.work
        seats = BOTS
        ttt = str(self.code / "rulesets" / "examples" / "tictactoe.rules")
        good = cli / "good.rules"
        good.write_text(Path(ttt).read_text())
        items: list[tuple[str, list[Run]]] = []

        def item(name, attack, runs):
            for r in runs:
                r.item, r.attack = "cli/" + name, attack
            items.append(("cli/" + name, runs))

        def R(label, argv, **kw):
            return Run("", label, argv, cli, **kw)

        # A valid save made through the real command: person at seat 1 plays one move and quits.
        valid = work / "valid.save.json"
        ok_save = cli / "ok.save.json"

        def make_valid():
            if ok_save.exists():
                return
            subprocess.run([*rb, "play", ttt, "--seed", "5", "--seat", "2=random",
                            "--save-to", str(ok_save)], input=b"1\nq\n", cwd=cli, env=self.env,
                           capture_output=True, timeout=self.timeout)
        make_valid_lock = threading.Lock()

        def ensure_valid():
            with make_valid_lock:
                make_valid()

        # --- a file name longer than 255 characters
        long_name = "x" * 300 + ".rules"
        item("long_file_name", "a file name of 300 characters (ENAMETOOLONG)", [
            R(c, [*rb, c, long_name]) for c in ("check", "fmt", "parse", "test")
        ] + [
            R("play", [*rb, "play", long_name, *seats]),
            R("simulate", [*rb, "simulate", long_name, "--games", "2"]),
            R("replay", [*rb, "replay", "y" * 300 + ".json"]),
            R("play --load", [*rb, "play", ttt, "--load", "y" * 300 + ".json", *seats]),
            R("check long path", [*rb, "check", "/".join(["d" * 200] * 30) + "/x.rules"]),
        ])
        # --- devices
        for dev in ("/dev/zero", "/dev/urandom"):
            tag = dev.rsplit("/", 1)[1]
            item(f"{tag}_as_file", f"{dev} named as a rules file and as a save", [
                R(c, [*rb, c, dev]) for c in ("check", "fmt", "parse", "test")
            ] + [
                R("play", [*rb, "play", dev, *seats]),
                R("simulate", [*rb, "simulate", dev, "--games", "2"]),
                R("replay", [*rb, "replay", dev], must_refuse=True),
                R("play --load", [*rb, "play", ttt, "--load", dev, *seats], must_refuse=True),
            ])
        item("dev_stdin_as_file", "/dev/stdin (closed) and /proc/self/fd/0 as files", [
            R("check", [*rb, "check", "/dev/stdin"]),
            R("replay", [*rb, "replay", "/proc/self/fd/0"], must_refuse=True),
        ])
        # --- fifos
        fifo_dir = cli / "fifo_game"
        fifo_dir.mkdir()
        os.mkfifo(fifo_dir / "x.rules")
        os.mkfifo(cli / "x.rules")
        os.mkfifo(cli / "fifo.save.json")
        item("fifo_rules_file", "a fifo named x.rules (no writer): reading it blocks forever", [
            R(c, [*rb, c, "x.rules"]) for c in ("check", "fmt", "parse", "test")
        ] + [
            R("play", [*rb, "play", "x.rules", *seats]),
            R("simulate", [*rb, "simulate", "x.rules", "--games", "2"]),
        ])
        item("fifo_in_folder", "a folder whose only .rules file is a fifo", [
            R(c, [*rb, c, "fifo_game"]) for c in ("check", "fmt", "test")
        ] + [
            R("play", [*rb, "play", "fifo_game", *seats]),
            R("simulate", [*rb, "simulate", "fifo_game", "--games", "2"]),
        ])
        item("fifo_save", "a fifo as the save file of replay and play --load", [
            R("replay", [*rb, "replay", "fifo.save.json"], must_refuse=True),
            R("play --load", [*rb, "play", ttt, "--load", "fifo.save.json", *seats],
              must_refuse=True),
        ])
        item("variant_option_devices", "--variant naming a fifo, /dev/zero, a folder and a "
             "long name (options of newer versions; a usage error is fine where it is unknown)", [
            R(f"play --variant {v[:20]}", [*rb, "play", ttt, *seats, "--variant", v])
            for v in ("x.rules", "/dev/zero", "/", "v" * 300)
        ] + [R("test --variant fifo", [*rb, "test", "good.rules", "--variant", "x.rules"])])
        # --- a sparse 4 GiB rules file and save
        with open(cli / "sparse.rules", "wb") as f:
            f.truncate(4 * GIB)
        with open(cli / "sparse.save.json", "wb") as f:
            f.truncate(4 * GIB)
        item("sparse_4gib", "a 4 GiB (sparse) rules file and save file", [
            R(c, [*rb, c, "sparse.rules"]) for c in ("check", "fmt", "test")
        ] + [
            R("play", [*rb, "play", "sparse.rules", *seats]),
            R("replay", [*rb, "replay", "sparse.save.json"], must_refuse=True),
            R("play --load", [*rb, "play", ttt, "--load", "sparse.save.json", *seats],
              must_refuse=True),
        ])
        # --- a folder that contains itself (symlink loop) and a link to /
        loop = cli / "loop"
        loop.mkdir()
        (loop / "game.rules").write_text(good.read_text())
        _symlink(".", loop / "self")
        _symlink("..", loop / "parent")
        item("folder_symlink_loop", "a folder with links to itself and its parent", [
            R(c, [*rb, c, "loop"]) for c in ("check", "fmt", "test")
        ] + [R("play", [*rb, "play", "loop", *seats])])
        rootlink = cli / "rootlink"
        rootlink.mkdir()
        _symlink("/", rootlink / "everything")
        (rootlink / "game.rules").write_text(good.read_text())
        item("folder_with_link_to_root", "a folder holding a symlink to / (a walk of the "
             "folder walks the whole machine)", [
            R(c, [*rb, c, "rootlink"]) for c in ("check", "fmt", "test")
        ])
        # --- read-only files and folders
        ro = cli / "ro"
        ro.mkdir()
        (ro / "ugly.rules").write_text('game "Ugly" {\n  players 2\n}\nsetup {\n  log "x"\n}\n')
        (ro / "ugly.rules").chmod(0o444)
        rodir = cli / "rodir"
        rodir.mkdir()
        (rodir / "ugly.rules").write_text('game "Ugly" {\n  players 2\n}\n')
        rodir.chmod(0o555)
        item("fmt_write_read_only", "fmt --write on a read-only file and in a read-only folder",
             [R("fmt --write file", [*rb, "fmt", "--write", "ro/ugly.rules"]),
              R("fmt --write dir", [*rb, "fmt", "--write", "rodir/ugly.rules"])])
        # --- saving where it cannot be written
        item("save_to_dev_full", "--save-to /dev/full; the person quits, so play saves", [
            R("play", [*rb, "play", ttt, "--save-to", "/dev/full"], stdin=b"q\n"),
            R("play (EOF)", [*rb, "play", ttt, "--save-to", "/dev/full"]),
        ])
        item("save_to_missing_folder", "--save-to into a folder that does not exist, and into "
             "a read-only folder", [
            R("play missing", [*rb, "play", ttt, "--save-to", "no/such/dir/s.json"], stdin=b"q\n"),
            R("play read-only", [*rb, "play", ttt, "--save-to", "rodir/s.json"], stdin=b"q\n"),
        ])
        # --- absurd numbers
        huge = str(10 ** 30)
        item("huge_numbers_simulate", "--games/--jobs/--players/--seed of 10**30 and negatives",
             [R(f"simulate {opt} {val}", [*rb, "simulate", ttt, *base, opt, val])
              for opt, val, base in (
                  ("--jobs", huge, ["--games", "2"]),
                  ("--games", huge, []),
                  ("--games", "-1", []),
                  ("--jobs", "-5", ["--games", "2"]),
                  ("--jobs", "1000", ["--games", "2"]),
                  ("--players", huge, ["--games", "2"]),
                  ("--players", "-3", ["--games", "2"]),
                  ("--seed", huge, ["--games", "2"]),
                  ("--seed", "-" + huge, ["--games", "2"]),
                  ("--seed", "-1", ["--games", "2"]),
              )])
        item("huge_numbers_play", "play with --players/--seed of 10**30 and negatives, and a seat "
             "number of 10**30", [
            R(f"play {opt} {val}", [*rb, "play", ttt, *seats, opt, val])
            for opt, val in (("--players", huge), ("--players", "0"), ("--players", "-2"),
                             ("--seed", huge), ("--seed", "-" + huge), ("--seed", "-1"),
                             ("--seat", huge + "=random"))
        ])
        # --- the memory limit of the command itself
        bomb = cli / "bomb.rules"
        bomb.write_text('game "Bomb" {\n    players 2\n}\nsetup {\n    let s = "ab"\n'
                        '    repeat 40 times {\n        set s = "{s}{s}"\n    }\n}\n')
        item("max_memory_option", "--max-memory at its largest (1 TiB) and smallest with a "
             "memory bomb; the probe's own 3 GiB limit is the real one", [
            R("play --max-memory 1048576", [*rb, "play", "bomb.rules", *seats, "--max-memory",
                                            "1048576"]),
            R("simulate --max-memory 1048576", [*rb, "simulate", "bomb.rules", "--games", "2",
                                                "--max-memory", "1048576"]),
            R("test --max-memory 64", [*rb, "test", "bomb.rules", "--max-memory", "64"]),
            R("play --max-memory 64", [*rb, "play", ttt, *seats, "--max-memory", "64"]),
        ])
        # --- replay --seat K
        def replay_seat(k):
            return R(f"replay --seat {k}", [*rb, "replay", str(ok_save), "--seat", k],
                     must_refuse=True, before=ensure_valid)
        item("replay_seat_out_of_range", "replay --seat K for seats that do not exist: it must "
             "refuse, not show a view", [replay_seat(k) for k in ("3", "99", "0", "-1", huge)])
        # --- rulebook test on files that check rejects
        bad = cli / "bad_with_scenario.rules"
        bad.write_text('game "Bad" {\n    players 2\n}\nsetup {\n    log "{undefined_name}"\n'
                       '}\nscenario "s" {\n    players 2\n    play to end with random\n}\n')
        broken = cli / "broken_syntax.rules"
        broken.write_text('game "Broken" {\n    players 2\n}\nsetup {\n    set = = =\n}\n')
        item("test_on_rejected_file", "`rulebook test` of files that `check` rejects must not "
             "report success", [
            R("test undefined name", [*rb, "test", "bad_with_scenario.rules"], must_refuse=True),
            R("test syntax error", [*rb, "test", "broken_syntax.rules"], must_refuse=True),
            R("test missing file", [*rb, "test", "no_such_file.rules"], must_refuse=True),
        ])
        # --- many arguments
        item("many_arguments", "check of the same file named 20,000 times", [
            R("check", [*rb, "check", *(["good.rules"] * 20_000)]),
        ])

        # --- hidden information
        liq = "liqueur"

        def same_as_other(result: Result):
            other = cli / "default_seed_first.out"
            if not other.exists():
                other.write_text(result.output)
                return None
            if other.read_text() == result.output:
                return ("hidden-info", "two games without --seed dealt the same cards "
                        "(the seed is fixed, so every deck is known in advance)")
            return None

        liq_seats = BOTS
        item("default_seed_fixed", "play twice without --seed: the two deals must differ", [
            R("play #1", [*rb, "play", liq, *liq_seats], after=same_as_other),
            R("play #2", [*rb, "play", liq, *liq_seats], after=same_as_other),
        ])

        undo_game = cli / "undo_draw.rules"
        undo_game.write_text(UNDO_GAME)

        def undo_after_draw(result: Result):
            out = result.output
            undone = ("Nothing of yours to undo" not in out
                      and out.count("Your decision: Draw a secret card") >= 2)
            drawn = set(re.findall(r"drew card (\d+)", out))
            if undone and len(drawn) == 1:
                return ("hidden-info", f"undo after drawing card {drawn.pop()} from the secret "
                        "deck, then drawing again, gave the same card: undo shows the future")
            return None

        item("undo_after_secret_draw", "draw a card from a secret deck of 1,000, undo, draw "
             "again: the player must not learn the deck's order through undo", [
            R("play", [*rb, "play", "undo_draw.rules", "--seed", "3", "--seat", "2=random",
                       "--save-to", str(work / "undo.save.json")],
              stdin=b"1\nu\n1\nq\n", after=undo_after_draw),
        ])

        def scrollback(result: Result):
            if "Pass the terminal" in result.output and "\x1b[3J" not in result.output:
                return ("hidden-info", "the hand-over screen does not clear the scrollback "
                        "(no ESC[3J): the next player scrolls up to the previous hand")
            return None

        item("handover_scrollback", "two people at one terminal (a pty): the hand-over must "
             "clear the scrollback", [
            R("play", [*rb, "play", ttt, "--seat", "1=human", "--seat", "2=human",
                       "--save-to", str(work / "hand.save.json")],
              stdin=b"\n1\n\nq\n", use_pty=True, escape_ok=True, after=scrollback),
        ])

        # --- saves written by play
        other_game = work / "rulebook-game.save.json"

        def prepare_clobber():
            ensure_valid()
            shutil.copy(ok_save, cli / "A.save.json")
            other_game.write_text('{"another": "game that must survive"}')

        def clobbered(result: Result):
            if other_game.read_text() != '{"another": "game that must survive"}':
                return ("unsafe-write", "q after --load A.save.json wrote "
                        "./rulebook-game.save.json over another game instead of A.save.json")
            return None

        item("q_after_load_clobbers", "continue A.save.json, press q: the save must not "
             "overwrite ./rulebook-game.save.json", [
            Run("", "play --load", [*rb, "play", ttt, "--load", str(cli / "A.save.json")],
                work, stdin=b"q\n", before=prepare_clobber, after=clobbered),
        ])
        target = cli / "atomic.save.json"

        def prepare_atomic():
            ensure_valid()
            shutil.copy(ok_save, target)

        def not_atomic(result: Result):
            data = target.read_bytes()
            try:
                json.loads(data)
            except ValueError:
                return ("unsafe-write", f"a save that could not be written completely left "
                        f"{target.name} truncated ({len(data)} bytes): saving is not atomic")
            return None

        item("save_not_atomic", "save over an existing save while writing fails half-way "
             "(file size limit of 300 bytes): the old save must survive intact", [
            R("play", [*rb, "play", ttt, "--seed", "5", "--save-to", str(target)],
              stdin=b"1\n2\nq\ny\n", fsize=300, before=prepare_atomic, after=not_atomic),
        ])
        return items

    # ------------------------------------------------------------------------------ running
    def execute(self, run: Run) -> Result:
        if run.before:
            run.before()
        out_path = self.tmp / "out" / f"{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        out_path.parent.mkdir(exist_ok=True)
        fsize = run.fsize or self.args.output_cap * MIB
        limit = int(self.args.memory * GIB)

        cpu = max(1, int(self.timeout))

        def preexec():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN if run.fsize else signal.SIG_DFL)

        start = time.monotonic()
        timed_out = None
        if run.use_pty:
            rc, output, timed_out = self._execute_pty(run, preexec)
        else:
            # The output goes through a pipe, drained by a thread into a file, so that the file
            # size limit of the run applies to the files it writes and not to its output.
            stdin = subprocess.PIPE if run.stdin is not None else subprocess.DEVNULL
            proc = subprocess.Popen(run.argv, cwd=run.cwd, env=self.env, stdin=stdin,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    preexec_fn=preexec, start_new_session=True)
            LIVE.add(proc.pid)
            flooded = threading.Event()
            cap = self.args.output_cap * MIB

            def drain():
                total = 0
                with open(out_path, "wb") as out:
                    while True:
                        chunk = proc.stdout.read1(1 << 16)
                        if not chunk:
                            break
                        total += len(chunk)
                        if total > cap:
                            flooded.set()
                            _kill_group(proc)
                            break
                        out.write(chunk)

            reader = threading.Thread(target=drain, daemon=True)
            reader.start()
            if run.stdin is not None:
                try:
                    proc.stdin.write(run.stdin)
                    proc.stdin.close()
                except OSError:
                    pass
            rc, timed_out = self._wait(proc)
            reader.join(timeout=10)
            proc.stdout.close()
            if flooded.is_set():
                timed_out = f"flood: more than {self.args.output_cap} MiB of output"
            raw = out_path.read_bytes()
            out_path.unlink()
            output = raw.decode("utf-8", errors="replace")
        result = Result(run, rc=rc, seconds=time.monotonic() - start, output=output)
        if rc is not None and rc < 0:
            result.signal = -rc
        self.classify(result, timed_out)
        return result

    def _wait(self, proc: subprocess.Popen) -> tuple[int, str | None]:
        """Wait for a run. CPU time is limited by RLIMIT_CPU (SIGXCPU), so a machine busy with
        other work does not turn a slow run into a timeout. A run whose process group uses no
        CPU for IDLE seconds is blocked (reading a fifo, say) and is stopped; so is any run after
        3 * timeout + 10 seconds of wall-clock time."""
        start = time.monotonic()
        hard = start + 3 * self.timeout + 10
        last_cpu, last_change, next_look = -1.0, start, start + 0.5
        reason = None
        while True:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = rc = os.waitstatus_to_exitcode(status)
                break
            now = time.monotonic()
            if now >= next_look:
                next_look = now + 0.2
                cpu, count = _group_usage(proc.pid)
                if count > MAX_PROCESSES:
                    reason = f"processes: more than {MAX_PROCESSES} processes at once"
                elif cpu is not None and cpu > last_cpu + 0.02:
                    last_cpu, last_change = cpu, now
                elif now - last_change > IDLE:
                    reason = f"blocked: no CPU used for {IDLE:g} s (waiting on a fifo or a pipe?)"
            if reason is None and now > hard:
                reason = f"no result after {hard - start:.0f} s of wall-clock time"
            if reason:
                _kill_group(proc)
                rc = proc.wait()
                break
            time.sleep(0.05)
        _kill_group(proc)  # whatever it left behind (simulate's worker processes)
        if rc == -signal.SIGXCPU:
            reason = f"no result after {self.timeout:g} s of CPU time"
        return rc, reason

    def _execute_pty(self, run: Run, preexec):
        import pty
        import select

        master, slave = pty.openpty()
        proc = subprocess.Popen(run.argv, cwd=run.cwd, env=self.env, stdin=slave, stdout=slave,
                                stderr=slave, preexec_fn=preexec, start_new_session=True)
        LIVE.add(proc.pid)
        os.close(slave)
        chunks = []
        fed = False
        deadline = time.monotonic() + 2 * self.timeout
        timed_out = None
        while True:
            if time.monotonic() > deadline:
                timed_out = f"no result after {2 * self.timeout:g} s"
                break
            r, _, _ = select.select([master], [], [], 0.2)
            if master in r:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
                if not fed and run.stdin:
                    # answer line by line, each after the program has asked
                    for line in run.stdin.splitlines(keepends=True):
                        time.sleep(0.5)
                        os.write(master, line)
                    fed = True
            elif proc.poll() is not None:
                break
        _kill_group(proc)
        rc = proc.wait()
        os.close(master)
        if rc == -signal.SIGXCPU:
            timed_out = f"no result after {self.timeout:g} s of CPU time"
        return rc, b"".join(chunks).decode("utf-8", errors="replace"), timed_out

    def classify(self, res: Result, timed_out: str | None) -> None:
        run, out = res.run, res.output
        lines = [line for line in out.splitlines() if line.strip()]

        def verdict(kind, detail, excerpt=None):
            res.kind, res.detail = kind, detail
            res.excerpt = excerpt if excerpt is not None else lines[:4]

        sig = res.signal
        traceback_at = out.find("Traceback (most recent call last)")
        if timed_out and timed_out.startswith("processes:"):
            return verdict("processes", timed_out.removeprefix("processes: "), lines[:3])
        if timed_out and timed_out.startswith("flood:"):
            return verdict("flood", timed_out.removeprefix("flood: "), lines[:3])
        if timed_out:
            return verdict("timeout", timed_out, lines[:3])
        if any(t in out for t in MEMORY_TEXT) or sig == signal.SIGKILL:
            line = next((x for x in lines if any(t in x for t in MEMORY_TEXT)), "killed")
            return verdict("memory", line.strip()[:200], lines[:2] + [line])
        if sig == signal.SIGXFSZ:
            return verdict("flood", f"wrote a file beyond {self.args.output_cap} MiB", lines[:3])
        if sig is not None or any(t in out for t in CRASH_TEXT):
            name = signal.Signals(sig).name if sig else "crash"
            line = next((x for x in lines if any(t in x for t in CRASH_TEXT)), name)
            return verdict("crash", line.strip()[:200], lines[:3])
        if traceback_at >= 0:
            tb = out[traceback_at:].splitlines()
            last = next((x for x in reversed(tb) if x.strip() and not x.startswith(" ")),
                        tb[-1] if tb else "")
            return verdict("traceback", last.strip()[:200], lines[:2] + [last])
        m = INTERNAL.search(out)
        if m:
            line = next(x for x in lines if INTERNAL.search(x))
            return verdict("internal-error", line.strip()[:200], [line])
        for marker in LEAK_MARKERS:
            if marker in out:
                line = next((x for x in lines if marker in x), marker)
                return verdict("leak", f"output contains {marker!r}", [line.strip()[:200]])
        control = TERMINAL_CONTROL.search(out)
        if control and not run.escape_ok:
            line = next((x for x in lines if TERMINAL_CONTROL.search(x)), "")
            return verdict("terminal-escape", f"raw control character {control.group(0)!r} "
                           "reaches the terminal", [_printable(line)[:200]])
        usage = res.rc == 2 and ("Usage:" in out or "Error: " in out)
        if usage and not run.item.startswith("cli/"):
            return verdict("control", "usage error: the probe's own arguments were refused",
                           lines[-3:])
        if run.must_refuse and res.rc == 0:
            return verdict("accepted", "exit 0 where it must refuse", lines[:3] or ["(no output)"])
        if res.rc not in (0, None) and not usage and not CODE.search(out):
            return verdict("unlocated", f"exit {res.rc} without any diagnostic code",
                           lines[:3] or ["(no output)"])
        nowhere = next((x for x in lines if x.startswith("<input>:")), None)
        if nowhere:
            return verdict("unlocated", "a diagnostic that names no file (`<input>:`)", [nowhere])
        if run.after:
            extra = run.after(res)
            if extra:
                return verdict(extra[0], extra[1], lines[:3])
        verdict("ok", "", [])


UNDO_GAME = """\
game "Undo" {
    players 2
}

global deck: deck of int secret
global row: list of int

setup {
    set deck = shuffled(1..1000)
}

play {
    rounds 3 {
        turn players[1] {
            choose players[1] "Draw a secret card" {
                option draw {
                    move top 1 from deck to row
                    log "drew card {last(row)}"
                }
            }
            choose players[1] "Keep it" {
                option keep {
                }
                option discard {
                }
            }
        }
        choose players[2] "Wait" {
            option wait {
            }
        }
    }
}
"""


def _must_succeed(expect: str):
    """For the control saves: a valid save that does not load is a failure too."""
    if expect != "ok":
        return None

    def check(result: Result):
        if result.rc != 0:
            return ("control", f"a valid input (a control) was refused: exit {result.rc}; "
                    "the attacks around it may not mean what they say")
        return None
    return check


def _symlink(target: str, link: Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(target, link)


IDLE = 6.0
_CLK = os.sysconf("SC_CLK_TCK")


MAX_PROCESSES = 32


def _group_usage(pgid: int) -> tuple[float | None, int]:
    """CPU seconds used so far by the live processes of a process group, and how many there
    are (from /proc)."""
    total, found = 0, 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rindex(b")") + 2:].split()
        if int(fields[2]) == pgid:  # field 5, pgrp
            found += 1
            total += int(fields[11]) + int(fields[12])  # fields 14 and 15, utime and stime
    return (total / _CLK if found else None), found


LIVE: set[int] = set()  # process groups of the runs in progress
STOP = threading.Event()  # set when the probe is interrupted: no new run starts


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group we created for this run only
    except (ProcessLookupError, PermissionError):
        pass
    LIVE.discard(proc.pid)


# ---------------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[],
                    help="run only items whose name contains NAME (or matches it as a glob); "
                         "repeatable, e.g. --only repeat --only 'saves/*digest*'")
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="seconds of CPU time per run (default 20)")
    ap.add_argument("--commands", help="run only these commands, e.g. check,play,replay")
    ap.add_argument("--memory", type=float, default=3.0, help="address-space limit in GiB (3)")
    ap.add_argument("--output-cap", type=int, default=64, help="MiB a run may write (64)")
    ap.add_argument("--parallel", type=int, default=max(2, os.cpu_count() or 2),
                    help="items run at once (each item runs its commands in turn)")
    ap.add_argument("--snapshot", action="store_true",
                    help="run a copy of the working tree taken at start (edits made while the "
                         "probe runs do not change the results)")
    ap.add_argument("--code", help="run the source tree in this folder instead of the installed "
                    "one (e.g. a `git archive HEAD` extraction)")
    ap.add_argument("--json", help="also write every result to this JSON file")
    ap.add_argument("--list", action="store_true", help="list the items and exit")
    ap.add_argument("--all", action="store_true", help="print ok runs too")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()

    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    probe = Probe(args)
    try:
        probe.setup()
        items = probe.items()
        if args.list:
            for name, runs in items:
                print(f"{name:48} {', '.join(r.label for r in runs):40} {runs[0].attack[:80]}")
            return 0
        if not items:
            print("no item matches", file=sys.stderr)
            return 2
        started = time.monotonic()
        results = run_all(probe, items, args.parallel)
        elapsed = time.monotonic() - started
        report(results, elapsed, probe, args)
        if args.json:
            Path(args.json).write_text(json.dumps([{
                "item": r.run.item, "command": r.run.label, "argv": r.run.argv[2:],
                "kind": r.kind, "detail": r.detail, "exit": r.rc, "seconds": round(r.seconds, 2),
                "excerpt": r.excerpt, "attack": r.run.attack} for r in results], indent=1))
        return 0 if all(r.kind == "ok" for r in results) else 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 2
    finally:
        for pgid in list(LIVE):  # runs still going when the probe stops
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if args.keep:
            print(f"(kept {probe.tmp})", file=sys.stderr)
        else:
            _remove(probe.tmp)


def run_all(probe: Probe, items, parallel: int) -> list[Result]:
    results: list[Result] = []
    lock = threading.Lock()
    total = sum(len(runs) for _, runs in items)
    done = [0]

    def run_item(entry):
        name, runs = entry
        out = []
        check_refused = False
        for run in runs:
            if STOP.is_set():
                break
            if run.label in ("play", "simulate", "test") and check_refused:
                run.must_refuse = True  # `check` rejects this file: no other command may pass
            res = probe.execute(run)
            if run.label == "check" and res.kind == "ok" and res.rc == 1:
                check_refused = True
            out.append(res)
            with lock:
                done[0] += 1
                mark = "." if res.kind == "ok" else res.kind[0].upper()
                print(mark, end="" if done[0] % 80 else f" {done[0]}/{total}\n", flush=True,
                      file=sys.stderr)
        return out

    pool = cf.ThreadPoolExecutor(max_workers=parallel)
    try:
        # the slowest items (many commands) first, so the pool is not left waiting at the end
        order = sorted(items, key=lambda e: -len(e[1]))
        for out in pool.map(run_item, order):
            results.extend(out)
    finally:
        STOP.set()
        pool.shutdown(wait=False, cancel_futures=True)
    print(file=sys.stderr)
    results.sort(key=lambda r: (r.run.item, r.run.label))
    return results


def report(results: list[Result], elapsed: float, probe: Probe, args) -> None:
    bad = [r for r in results if r.kind != "ok"]
    shown = results if args.all else bad
    if shown:
        w_item = min(48, max(len(r.run.item) for r in shown))
        w_cmd = min(24, max(len(r.run.label) for r in shown))
        print(f"{'item':{w_item}}  {'command':{w_cmd}}  {'result':15} {'time':>6}  detail")
        print("-" * (w_item + w_cmd + 40))
        for r in shown:
            print(f"{r.run.item:{w_item}}  {r.run.label:{w_cmd}}  {r.kind:15} "
                  f"{r.seconds:5.1f}s  {_printable(r.detail)}")
            if r.kind != "ok":
                for line in r.excerpt[:4]:
                    print(f"{'':{w_item}}  | {_printable(line)[:160]}")
        print()
    counts: dict[str, int] = {}
    for r in results:
        counts[r.kind] = counts.get(r.kind, 0) + 1
    items = {r.run.item for r in results}
    bad_items = {r.run.item for r in bad}
    print(f"{len(results)} runs of {len(items)} items in {elapsed:.0f} s "
          f"(timeout {args.timeout:g} s, {args.parallel} at once, {args.memory:g} GiB each)")
    print("  " + ", ".join(f"{k} {counts[k]}" for k in KINDS if k in counts))
    print(f"  items with at least one failure: {len(bad_items)} of {len(items)}")
    for note in probe.setup_notes:
        print(f"  note: {note}")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _printable(text: str) -> str:
    """A line safe to print: control characters (ESC, ...) and surrogates shown as escapes."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def _remove(path: Path) -> None:
    for p in path.rglob("*"):
        try:
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
