#!/usr/bin/env python3
"""Forge the hostile save files of tests/hostile/saves/ from valid saves made with the API.

    python tests/hostile/make_saves.py [--out DIR] [--large]

Valid saves of the bundled games (Tic-tac-toe, Liqueur, Beverage) are made with
`rulebook.api`, then mutated. Where a forgery is only interesting with a digest that matches
(history entries that run statements, a wrong rules fingerprint, a missing digest next to a
changed history), the digest is recomputed with the engine itself, exactly as an attacker would.
Every save names its ruleset by bundled name ("examples/tictactoe", "liqueur", "beverage"), so
the files do not depend on where the repository is.

`manifest.json` lists each file with the attack, the ruleset to run it against and what must
happen ("refuse": the save must be refused with a diagnostic; "ok": it must load). The probe runs
this script again into its temporary folder, so the forgeries always follow the current engine;
`--large` adds the files too large to commit (a million history entries, JSON nested a million
deep).
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    from rulebook import api
    from rulebook.grammar.parser import parse_text
except ImportError:  # run with another Python: use the repository's virtual environment
    _venv = HERE.parents[1] / ".venv" / "bin" / "python"
    if _venv.exists() and Path(sys.prefix).resolve() != _venv.parents[1].resolve():
        os.execv(str(_venv), [str(_venv), str(Path(__file__).resolve()), *sys.argv[1:]])
    raise

TTT, LIQ, BEV = "examples/tictactoe", "liqueur", "beverage"
GAMES = {TTT: ("Tic-tac-toe", 2, 5, 3), LIQ: ("Liqueur", 3, 7, 6), BEV: ("Beverage", 3, 7, 6)}


def given_body(statements: str):
    """The statements of `given { ... }`, parsed as the scenario runner parses them."""
    text = ('game "G" {\n    players 2\n}\nscenario "s" {\n    given {\n'
            + "".join(f"        {line}\n" for line in statements.strip().splitlines())
            + "    }\n}\n")
    program = parse_text(text, "<forged>")
    return program.scenarios[0].items[0].body


def given_json(statements: str) -> dict:
    """A history entry {"given": [statements as AST JSON]}, as Game.given recorded it."""
    from pydantic import TypeAdapter

    from rulebook.grammar import ast as A

    stmts = TypeAdapter(list[A.Stmt])
    return {"given": stmts.dump_python(list(given_body(statements)), mode="json"),
            "_source": statements}  # (removed before writing)


class Forge:
    def __init__(self, out: Path, large: bool):
        self.out = out
        self.large = large
        self.manifest: list[dict] = []
        self.rules = {ref: api.load(ref) for ref in GAMES}
        self.base = {ref: self._play(ref) for ref in GAMES}

    # ----------------------------------------------------------------------- valid games
    def _play(self, ref: str, extra_given: str | None = None, decisions: int | None = None):
        _, players, seed, n = GAMES[ref]
        game = api.new_game(self.rules[ref], players, seed)
        for _ in range(n if decisions is None else decisions):
            if game.pending is None:
                break
            options = game.legal_options()
            game.apply(options[len(options) // 2][0])
        if extra_given is not None:
            game.given(given_body(extra_given))
        return game

    def valid(self, ref: str) -> dict:
        data = self.base[ref].save()
        data["ruleset"] = ref
        return data

    def digest_of(self, ref: str, data: dict) -> str:
        """The digest the engine computes for this (players, seed, history): a forger's digest,
        made through the public API (decisions with apply, given entries with Game.given)."""
        game = api.new_game(self.rules[ref], data["players"], data["seed"])
        for entry in data["history"]:
            if "given" in entry:
                game.given(given_body(entry["_source"]))
            else:
                game.apply(entry["option"], entry.get("player"))
        try:
            return game.save()["digest"]
        except api.DiagnosticError:  # the engine refuses to save such a game: digest it anyway
            return game.digest()

    # --------------------------------------------------------------------------- writing
    def put(self, name: str, ref: str, attack: str, data=None, raw: bytes | None = None,
            expect: str = "refuse", compact: bool = False, explicit: str | None = None) -> None:
        path = self.out / f"{name}.json"
        if raw is None:
            raw = json.dumps(data, indent=None if compact else 1, ensure_ascii=False,
                             separators=(",", ":") if compact else None).encode("utf-8")
        path.write_bytes(raw)
        entry = {"file": path.name, "ruleset": ref, "expect": expect, "attack": attack}
        about_rules = ("digest_", "fingerprint_", "ruleset_swapped", "large_declarations")
        if expect == "refuse" and not name.startswith(about_rules):
            # Not a question of changed rules: even `--accept-changed-rules` must refuse it.
            entry["refuse_with_accept_flag"] = True
        if explicit is not None:
            # When the ruleset is given on the command line (replay --ruleset, play --load) the
            # save's own "ruleset" field is not used: the save is otherwise valid.
            entry["expect_with_ruleset"] = explicit
        self.manifest.append(entry)

    def mutate(self, name, ref, attack, change, recompute=False, expect="refuse",
               explicit=None):
        data = copy.deepcopy(self.valid(ref))
        change(data)
        if recompute:
            try:
                data["digest"] = self.digest_of(ref, data)
            except Exception as e:  # noqa: BLE001 - the engine refused to build the state
                print(f"{name}: digest not recomputed ({type(e).__name__}: {e})"[:200],
                      file=sys.stderr)
        if isinstance(data.get("history"), list):
            for entry in data["history"]:
                if isinstance(entry, dict):
                    entry.pop("_source", None)
        self.put(name, ref, attack, data, expect=expect, explicit=explicit)

    # --------------------------------------------------------------------------- the set
    def all(self) -> None:
        for ref, tag in ((TTT, "ttt"), (LIQ, "liqueur"), (BEV, "beverage")):
            self.put(f"control_valid_{tag}", ref, "control: an untouched save of a game in "
                     "progress; it must load", self.valid(ref), expect="ok")
        self.given_entries()
        self.digests()
        self.fingerprints()
        self.ruleset_paths()
        self.numbers()
        self.history_shapes()
        self.json_shapes()
        if self.large:
            self.large_files()
        manifest = {"about": "hostile saves; regenerate with make_saves.py", "saves": self.manifest}
        (self.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")

    def given_entries(self):
        def add_given(statements):
            def change(d):
                d["history"].append(given_json(statements))
            return change

        self.mutate("given_log_recomputed_digest", TTT, "a history entry {\"given\": [log]} with "
                    "the digest recomputed: loading runs rules statements from the save",
                    add_given('log "a statement from the save file ran"'), recompute=True)
        self.mutate("given_set_winner", TTT, "a given entry that sets the board so player 1 has "
                    "won; digest recomputed", add_given(
                        "set board[3, 1] = x\nset board[3, 2] = x\nset board[3, 3] = x\n"
                        "set players[1].won = true"), recompute=True)
        self.mutate("given_reveal_secret_deck", LIQ, "a given entry that reveals Liqueur's "
                    "secret market deck to everyone; digest recomputed",
                    add_given("reveal market_deck\nreveal order_deck"), recompute=True)
        self.mutate("given_give_caps", BEV, "a given entry that moves 100 bottle caps from the "
                    "bank to player 1 in Beverage; digest recomputed",
                    add_given("decrease bank by 100\nincrease players[1].caps by 100"),
                    recompute=True)
        self.mutate("given_end_game", TTT, "a given entry `end game` (an internal error in "
                    "scenarios)", add_given("end game"))
        self.mutate("given_infinite_loop", TTT, "a given entry `while true { }`: an empty loop "
                    "costs no step", add_given("while true {\n}"))
        self.mutate("given_repeat_2pow53", TTT, "a given entry repeating an empty block 2^53 "
                    "times", add_given("repeat 9007199254740992 times {\n}"))
        self.mutate("given_text_doubling", TTT, "a given entry doubling a text 40 times",
                    add_given('let s = "ab"\nrepeat 40 times {\n    set s = "{s}{s}"\n}'))
        self.mutate("given_choose", TTT, "a given entry that asks for a decision",
                    add_given('choose players[1] "pick" {\n    option a {\n    }\n}'))
        self.mutate("given_only_entry", TTT, "the whole history is one given entry that sets "
                    "the log, with no decision at all",
                    lambda d: d.__setitem__("history", [given_json('log "forged line"')]),
                    recompute=True)

        def malformed(d):
            d["history"].append({"given": [{"kind": "no_such_statement", "x": 1}]})
        self.mutate("given_malformed_ast", TTT, "a given entry whose statements are not AST "
                    "nodes", malformed)

        def wrong_span(d):
            entry = given_json('log "x"')
            entry["given"][0]["span"] = {"line": -5, "column": 10 ** 20}
            d["history"].append(entry)
        self.mutate("given_bad_span", TTT, "a given entry with absurd source positions",
                    wrong_span)

        # not not not ... true, nested 5,000 deep as AST JSON (written as text: the JSON
        # writer itself would refuse such depth).
        data = copy.deepcopy(self.valid(TTT))
        entry = given_json('require not true "m"')
        entry.pop("_source")
        entry["given"][0]["test"] = "@DEEP@"
        data["history"].append(entry)
        depth = 5_000
        deep = ('{"kind": "unary", "op": "not", "operand": ' * depth
                + '{"kind": "bool", "value": true}' + "}" * depth)
        raw = json.dumps(data, indent=1).replace('"@DEEP@"', deep).encode()
        self.put("given_deep_ast", TTT, "a given entry whose expression is nested 5,000 deep "
                 "(recursion while reading, validating or running it)", raw=raw)

    def digests(self):
        def drop(d):
            del d["digest"]
        self.mutate("digest_missing", TTT, "no digest at all: verification is skipped", drop)

        def drop_and_change(d):
            del d["digest"]
            d["history"][-1]["option"] = "place:3:3"
        self.mutate("digest_missing_history_changed", TTT, "no digest, and a decision changed "
                    "(the state no longer matches anything recorded)", drop_and_change)
        self.mutate("digest_empty", TTT, "an empty digest (falsy: verification is skipped)",
                    lambda d: d.__setitem__("digest", ""))
        self.mutate("digest_null", TTT, "digest null",
                    lambda d: d.__setitem__("digest", None))
        self.mutate("digest_zero", TTT, "digest 0 (a number, falsy)",
                    lambda d: d.__setitem__("digest", 0))
        self.mutate("digest_false", LIQ, "digest false",
                    lambda d: d.__setitem__("digest", False))
        self.mutate("digest_list", TTT, "digest is a list",
                    lambda d: d.__setitem__("digest", ["a"]))
        self.mutate("digest_wrong", LIQ, "a digest of another state",
                    lambda d: d.__setitem__("digest", "0" * 64))

        def other_decision(d):
            d["history"][0]["option"] = "place:3:3"
        self.mutate("digest_wrong_history_changed", TTT, "a decision changed, the old digest "
                    "kept", other_decision)

    def fingerprints(self):
        self.mutate("fingerprint_wrong", TTT, "rules_fingerprint of other rules, digest valid: "
                    "the rules changed since the save",
                    lambda d: d.__setitem__("rules_fingerprint", "0123456789abcdef"))
        self.mutate("fingerprint_missing", LIQ, "no rules_fingerprint",
                    lambda d: d.pop("rules_fingerprint"))

        def of_other_game(d):
            d["rules_fingerprint"] = self.valid(TTT)["rules_fingerprint"]
        self.mutate("fingerprint_of_other_game", BEV, "a Beverage save carrying Tic-tac-toe's "
                    "fingerprint", of_other_game)
        self.mutate("fingerprint_not_text", TTT, "rules_fingerprint is a number",
                    lambda d: d.__setitem__("rules_fingerprint", 12345))

        def declarations(value):
            def change(d):  # with another fingerprint, so that the record is read and named
                d["rules_fingerprint"] = "0123456789abcdef"
                d["declarations"] = value
            return change
        self.mutate("fingerprint_declarations_list", TTT, "the per-declaration record is a list",
                    declarations(["setup", "play"]))
        self.mutate("fingerprint_declarations_10k", TTT, "a per-declaration record of 10,000 "
                    "entries (each compared, each named in the message?)",
                    declarations({f"define d{i}": "0" * 12 for i in range(10_000)}))
        self.mutate("fingerprint_declarations_escape", TTT, "per-declaration names made of "
                    "terminal escapes (named back in the E0317 message)",
                    declarations({"\u001b[2J\u001b]0;pwned\u0007": "x"}))

        def other_variant(d):
            d["ruleset"] = "liqueur/two_players"
        self.mutate("ruleset_swapped_variant", LIQ, "a Liqueur save (3 players) that names the "
                    "two-player variant", other_variant, explicit="any")

    def ruleset_paths(self):
        deep_up = "../" * 12
        for name, value, attack in (
            ("ruleset_etc_passwd", "/etc/passwd", "the save names /etc/passwd as its ruleset"),
            ("ruleset_dotdot_passwd", deep_up + "etc/passwd", "the save names ../../../etc/passwd"),
            ("ruleset_proc_version", "/proc/version", "the save names /proc/version"),
            ("ruleset_outside_secret", "../outside/secret.rules", "the save names a rules file "
             "outside its folder (its lines would be quoted in a diagnostic)"),
            ("ruleset_outside_game", "../outside/secret_game.rules", "the save names a valid "
             "game outside its folder"),
            ("ruleset_symlink_passwd", "../rulesets/links/passwd.rules", "the save names a "
             "symlink to /etc/passwd (made by the probe)"),
            ("ruleset_fifo", "../rulesets/links/fifo.rules", "the save names a fifo (made by the "
             "probe): reading it blocks"),
            ("ruleset_dev_zero", "/dev/zero", "the save names /dev/zero"),
            ("ruleset_root_folder", "/", "the save names / (a folder: its game file is looked "
             "for)"),
            ("ruleset_hostile_rules", "../rulesets/repeat_2pow53_empty.rules", "the save names a "
             "hostile rules file of the corpus (an empty loop 2^53 times)"),
            ("ruleset_nul_byte", "examples/tictactoe\u0000.rules", "a NUL byte in the ruleset "
             "path"),
            ("ruleset_surrogate", "examples/\udc80tictactoe", "a lone surrogate in the ruleset "
             "path (escaped in JSON)"),
            ("ruleset_long_name", "x" * 5000, "a 5,000-character ruleset name"),
            ("ruleset_number", 12, "ruleset is a number"),
            ("ruleset_object", {"path": "/etc/passwd"}, "ruleset is an object"),
        ):
            raw = None
            data = copy.deepcopy(self.valid(TTT))
            data["ruleset"] = value
            if isinstance(value, str) and "\udc80" in value:
                raw = json.dumps(data, indent=1).encode("ascii")  # "\udc80" escaped
            self.put(name, TTT, attack, data if raw is None else None, raw=raw, explicit="any")

    def numbers(self):
        for field, values in (
            ("players", (("huge", 10 ** 30), ("50m", 50_000_000), ("negative", -2), ("zero", 0),
                         ("float", 2.0), ("text", "2"), ("true", True), ("null", None),
                         ("2pow64", 2 ** 64))),
            ("seed", (("huge", 10 ** 30), ("2pow64", 2 ** 64), ("negative", -1),
                      ("min_int64", -2 ** 63), ("float", 5.5), ("text", "5"), ("true", True),
                      ("null", None))),
        ):
            for tag, value in values:
                self.mutate(f"{field}_{tag}", TTT, f"{field} = {value!r}",
                            lambda d, f=field, v=value: d.__setitem__(f, v))
        # Numbers Python's json cannot even read: NaN, Infinity, an integer of 5,000 digits.
        text = json.dumps(self.valid(TTT), indent=1)
        for tag, literal in (("nan", "NaN"), ("infinity", "Infinity"), ("1e400", "1e400"),
                             ("5000_digits", "1" * 5000)):
            raw = text.replace('"seed": 5', f'"seed": {literal}').encode()
            self.put(f"seed_{tag}", TTT, f"seed written as {literal[:20]} in the JSON", raw=raw)
        raw = text.replace('"players": 2', '"players": ' + "9" * 5000).encode()
        self.put("players_5000_digits", TTT, "players is an integer of 5,000 digits", raw=raw)

    def history_shapes(self):
        def set_history(h):
            return lambda d: d.__setitem__("history", h)

        for name, history, attack in (
            ("history_option_number", [{"player": 1, "option": 7}], "an option that is a number"),
            ("history_option_huge_text", [{"player": 1, "option": "x" * 150_000}],
             "an option id of 150,000 characters (quoted back in the error?)"),
            ("history_option_escape", [{"player": 1, "option": "\u001b[2J\u001b]0;pwned\u0007"}],
             "an option id made of terminal escape sequences (echoed in the error)"),
            ("history_player_text", [{"player": "1", "option": "place:1:1"}], "player is text"),
            ("history_player_huge", [{"player": 10 ** 30, "option": "place:1:1"}],
             "player 10**30"),
            ("history_player_wrong", [{"player": 2, "option": "place:1:1"}], "the decision of "
             "seat 1 made by seat 2"),
            ("history_entry_null", [None], "a history entry that is null"),
            ("history_entry_list", [["place:1:1"]], "a history entry that is a list"),
            ("history_not_list", {"0": "place:1:1"}, "history is an object"),
            ("history_both_kinds", [{"player": 1, "option": "place:1:1", "given": []}],
             "an entry that is both a decision and a given block"),
            ("history_after_game_over", [{"player": s, "option": o} for s, o in (
                (1, "place:1:1"), (2, "place:2:1"), (1, "place:1:2"), (2, "place:2:2"),
                (1, "place:1:3"), (2, "place:3:3"), (1, "place:3:1"))],
             "decisions after the game is over"),
            ("history_2000_illegal", [{"player": 1, "option": "place:9:9"}] * 2000,
             "2,000 illegal decisions"),
        ):
            self.mutate(name, TTT, attack, set_history(history))
        self.mutate("history_label_instead_of_id", TTT, "decisions written by their label "
                    "(accepted by apply) with the digest recomputed",
                    set_history([{"player": 1, "option": "row 1, column 1"}]), recompute=True,
                    expect="any")

    def json_shapes(self):
        valid = json.dumps(self.valid(TTT), indent=1)
        for name, raw, attack in (
            ("json_empty", b"", "an empty file"),
            ("json_not_utf8", b'{"format": "rulebook-save", "title": "\xff\xfe"}', "bytes that "
             "are not UTF-8"),
            ("json_utf16", valid.encode("utf-16"), "the valid save encoded as UTF-16 with a BOM"),
            ("json_nul_bytes", valid.encode().replace(b'"title"', b'"ti\x00tle"'), "a NUL byte"),
            ("json_array", b"[]", "a JSON array"),
            ("json_string", b'"rulebook-save"', "a JSON string"),
            ("json_null", b"null", "JSON null"),
            ("json_truncated", valid.encode()[: len(valid) // 2], "a save cut in half"),
            ("json_deep_50k", b'{"format": "rulebook-save", "version": 1, "history": '
             + b"[" * 50_000 + b"]" * 50_000 + b"}", "a history nested 50,000 deep "
             "(RecursionError in the JSON reader)"),
            ("json_deep_objects_20k", b'{"a": ' * 20_000 + b"1" + b"}" * 20_000,
             "objects nested 20,000 deep"),
            ("json_duplicate_keys", valid.replace('"digest"', '"digest": "", "digest"', 1)
             .encode(), "the digest key twice"),
            ("json_bom_utf8", b"\xef\xbb\xbf" + valid.encode(), "the valid save with a UTF-8 "
             "byte-order mark", ),
        ):
            harmless = name in ("json_bom_utf8", "json_duplicate_keys")  # the data is valid
            self.put(name, TTT, attack, raw=raw, expect="any" if harmless else "refuse")

    def large_files(self):
        valid = self.valid(TTT)
        data = dict(valid, history=[{"player": 1, "option": "place:9:9"}] * 1_000_000)
        self.put("large_history_1m", TTT, "a million history entries (35 MB)", data, compact=True)
        self.put("large_declarations_1m", TTT, "a per-declaration record of a million entries "
                 "and another fingerprint", dict(valid, rules_fingerprint="0123456789abcdef",
                 declarations={f"define d{i}": "0" * 12 for i in range(1_000_000)}), compact=True)
        self.put("large_json_deep_1m", TTT, "a history nested a million deep",
                 raw=b'{"format": "rulebook-save", "version": 1, "history": '
                 + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}")
        entry = given_json('require not true "m"')
        entry.pop("_source")
        entry["given"][0]["test"] = "@DEEP@"
        depth = 200_000
        deep = ('{"kind": "unary", "op": "not", "operand": ' * depth
                + '{"kind": "bool", "value": true}' + "}" * depth)
        raw = json.dumps(dict(valid, history=[entry]), indent=1).replace('"@DEEP@"', deep)
        self.put("large_given_deep_ast", TTT, "a given expression nested 200,000 deep",
                 raw=raw.encode())
        self.put("large_given_statements", TTT, "one given entry of 50,000 log statements",
                 dict(valid, history=[{"given": given_json('log "x"')["given"] * 50_000}]),
                 compact=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "saves"))
    ap.add_argument("--large", action="store_true", help="also write the files too large to commit")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    Forge(out, args.large).all()
    print(f"wrote {len(list(out.glob('*.json'))) - 1} saves and manifest.json to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
