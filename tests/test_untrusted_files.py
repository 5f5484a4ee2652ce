"""Rules files and saves from strangers: they name nothing outside their ruleset, a save is data,
and no file is read (or quoted) that the user did not name as rules."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulebook import api
from rulebook.cli import main
from rulebook.validator.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]
TTT = str(ROOT / "rulesets" / "examples" / "tictactoe.rules")
SECRET = "TOP-SECRET-LINE: nobody outside may read this"


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    assert "E0999" not in result.output and "E0199" not in result.output, result.output
    return result


@pytest.fixture
def outside(tmp_path) -> Path:
    """A file outside the ruleset's folder, holding a line no diagnostic may quote."""
    secret = tmp_path / "private" / "secret.rules"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n", encoding="utf-8")
    return secret


def ruleset_folder(tmp_path) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.rules").write_text(Path(TTT).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


# ------------------------------------------------------------------------------- extends
@pytest.mark.parametrize("how", ["relative", "absolute", "symlink", "not_rules", "etc_passwd"])
def test_extends_cannot_leave_the_rulesets_folder(tmp_path, outside, how):
    folder = ruleset_folder(tmp_path)
    target = {"relative": "../private/secret.rules", "absolute": str(outside),
              "symlink": "link.rules", "not_rules": "../private/secret.txt",
              "etc_passwd": "../../../../../../../../etc/passwd"}[how]
    if how == "symlink":
        os.symlink(outside, folder / "link.rules")
    variant = folder / "v.rules"
    variant.write_text(f'variant "V" extends "{target}" {{\n}}\n', encoding="utf-8")
    for command in (["check", str(variant)], ["simulate", str(variant), "--games", "1"],
                    ["test", str(variant)]):
        result = run(*command)
        assert result.exit_code == 1
        assert f"{variant}:1:1: error[E0511]" in result.output, result.output
        assert SECRET not in result.output and "root:x:" not in result.output


def test_extends_inside_the_tree_from_a_subfolder_still_works(tmp_path):
    folder = ruleset_folder(tmp_path)
    (folder / "variants").mkdir()
    variant = folder / "variants" / "v.rules"
    variant.write_text('variant "V" extends "../game.rules" {\n}\n', encoding="utf-8")
    assert run("check", str(variant)).exit_code == 0


def test_a_scenario_names_only_its_own_tree_or_a_bundled_game(tmp_path, outside):
    folder = ruleset_folder(tmp_path)
    (folder / "tests").mkdir()
    inside = folder / "tests" / "ok.rules"
    inside.write_text('scenario "beside" {\n    ruleset "../game.rules"\n    players 2\n'
                      '    expect size(players) == 2\n}\n'
                      'scenario "bundled" {\n    ruleset "examples/tictactoe"\n    players 2\n'
                      '    expect size(players) == 2\n}\n', encoding="utf-8")
    result = run("test", str(inside))
    assert result.exit_code == 0 and "2 passed, 0 failed" in result.output, result.output
    for ref in (str(outside), "../../private/secret.rules", "../../../../../etc/passwd"):
        bad = folder / "tests" / "bad.rules"
        bad.write_text(f'scenario "out" {{\n    ruleset "{ref}"\n    players 2\n}}\n',
                       encoding="utf-8")
        for command in ("check", "test"):
            result = run(command, str(bad))
            assert result.exit_code == 1 and "E0511" in result.output, result.output
            assert SECRET not in result.output and "root:x:" not in result.output


def test_diagnostics_quote_only_files_read_as_rules(tmp_path, outside):
    """A runtime error in a rules file quotes that file; nothing is read again from disk."""
    game = tmp_path / "g.rules"
    game.write_text('game "G" {\n    players 2\n}\nglobal n: int\nplay {\n    set n = 1 / 0\n}\n',
                    encoding="utf-8")
    result = run("simulate", str(game), "--games", "1")
    assert "E0305" in result.output
    result = run("play", str(game), "--seat", "1=random", "--seat", "2=random")
    assert result.exit_code == 1
    assert "set n = 1 / 0" in result.output and "^" in result.output


# --------------------------------------------------------------------------- odd files
@pytest.mark.parametrize("command", [["check"], ["test"], ["fmt"], ["parse"],
                                     ["play", "--seat", "1=random", "--seat", "2=random"],
                                     ["simulate", "--games", "1"]])
def test_a_pipe_named_like_a_rules_file_is_refused_without_waiting(tmp_path, command):
    fifo = tmp_path / "x.rules"
    os.mkfifo(fifo)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(run(command[0], str(fifo), *command[1:])),
                              daemon=True)
    worker.start()
    worker.join(20)
    assert done, f"`rulebook {command[0]}` waited on a pipe"
    assert done[0].exit_code == 1
    assert "E0003" in done[0].output or "E0501" in done[0].output, done[0].output


def test_a_folder_holding_a_pipe_is_played_without_waiting(tmp_path):
    folder = ruleset_folder(tmp_path)
    os.mkfifo(folder / "stuck.rules")
    done: list = []
    worker = threading.Thread(target=lambda: done.append(
        run("play", str(folder), "--seat", "1=first", "--seat", "2=first")), daemon=True)
    worker.start()
    worker.join(30)
    assert done and done[0].exit_code == 0, done and done[0].output


def test_devices_and_long_names_are_diagnostics(tmp_path):
    result = run("check", "/dev/zero")
    assert result.exit_code == 1 and "/dev/zero: error[E0003]" in result.output
    long_name = str(tmp_path / ("x" * 300 + ".rules"))
    for command in (["check", long_name], ["fmt", long_name], ["parse", long_name],
                    ["play", long_name], ["replay", long_name]):
        result = run(*command)
        assert result.exit_code == 1, (command, result.output)


def test_fmt_write_on_a_read_only_file_reports_and_keeps_it(tmp_path):
    path = tmp_path / "ro.rules"
    text = 'game "G" {\n    players 2\n}\nconst a   =   1\n'
    path.write_text(text, encoding="utf-8")
    path.chmod(0o444)
    result = run("fmt", "--write", str(path))
    if os.access(path, os.W_OK):  # the superuser may write any file, as with any other tool
        assert result.exit_code == 0 and "const a = 1" in path.read_text(encoding="utf-8")
        assert path.stat().st_mode & 0o777 == 0o444  # the file keeps its mode
        return
    assert result.exit_code == 1 and "E0009" in result.output
    assert path.read_text(encoding="utf-8") == text


def test_fmt_write_on_a_file_in_a_read_only_folder_still_writes_atomically(tmp_path):
    path = tmp_path / "g.rules"
    path.write_text('game "G" {\n    players 2\n}\nconst a   =   1\n', encoding="utf-8")
    result = run("fmt", "--write", str(path))
    assert result.exit_code == 0
    assert "const a = 1" in path.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["g.rules"]  # no temporary file left


def test_absurd_command_line_numbers_are_usage_errors():
    for args in (["--jobs", str(10 ** 30)], ["--games", str(10 ** 30)], ["--games", "0"],
                 ["--jobs", "-1"], ["--players", str(10 ** 30)]):
        result = run("simulate", TTT, *args)
        assert result.exit_code == 2, (args, result.output)
    assert run("play", TTT, "--seed", str(10 ** 30)).exit_code == 2


# -------------------------------------------------------------------------------- saves
def saved_game(tmp_path) -> tuple[Path, dict]:
    rules = api.load("examples/tictactoe")
    game = api.new_game(rules, 2, seed=1)
    game.apply(game.legal_options()[0][0])
    path = tmp_path / "g.save.json"
    api.save(game, path)
    return path, json.loads(path.read_text(encoding="utf-8"))


def refused(path: Path, data, rules=None, code="E0314"):
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DiagnosticError) as e:
        api.load_game(path, rules)
    assert e.value.diagnostics[0].code == code, e.value.diagnostics[0]
    return e.value.diagnostics[0].message


def test_a_save_names_a_bundled_ruleset_and_loads(tmp_path):
    path, data = saved_game(tmp_path)
    assert data["ruleset"] == "examples/tictactoe"
    assert len(api.load_game(path).history) == 1


def test_a_save_is_data_statements_in_it_are_refused(tmp_path):
    path, data = saved_game(tmp_path)
    data["history"].append({"given": [{"kind": "end_game"}]})
    assert "is not a decision" in refused(path, data)


def test_a_save_without_its_digest_or_with_a_wrong_one_is_refused(tmp_path):
    path, data = saved_game(tmp_path)
    assert "no digest" in refused(path, {k: v for k, v in data.items() if k != "digest"})
    assert "does not hold the game its digest recorded" in refused(path, dict(data, digest="0" * 64))
    forged = json.loads(json.dumps(data))
    forged["game"]["state"]["seats"][0]["vars"]["mark"] = {"m": "o"}  # the digest no longer fits
    assert "digest" in refused(path, forged)


def test_a_save_naming_a_file_outside_its_folder_is_refused(tmp_path, outside):
    path, data = saved_game(tmp_path)
    for ref in ("/etc/passwd", str(outside), "../../../../etc/passwd", "private/../../x.rules"):
        message = refused(path, dict(data, ruleset=ref))
        assert "may not use" in message and SECRET not in message
    result = run("replay", str(path))
    assert result.exit_code == 1 and "root:x:" not in result.output


def test_a_save_names_no_file_above_its_folder_even_beside_a_game(tmp_path):
    (tmp_path / "game.rules").write_text(Path(TTT).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "saves").mkdir()
    path, data = saved_game(tmp_path / "saves")
    assert "outside its own folder" in refused(path, dict(data, ruleset="../game.rules"))


def test_a_save_made_under_other_rules_names_what_changed(tmp_path):
    game_file = tmp_path / "g.rules"
    text = Path(TTT).read_text(encoding="utf-8")
    game_file.write_text(text, encoding="utf-8")
    rules = api.load(str(game_file))
    game = api.new_game(rules, 2, seed=1)
    game.apply(game.legal_options()[0][0])
    save = tmp_path / "g.save.json"
    api.save(game, save)
    assert json.loads(save.read_text())["ruleset"] == "g.rules"
    changed = text.replace("winner p in players by", "# a comment moves nothing\nwinner p in players by")
    game_file.write_text(changed, encoding="utf-8")
    assert len(api.load_game(save).history) == 1  # comments and layout are not the rules
    game_file.write_text(text.replace("\nplay ", "\nconst extra = 1\nplay ", 1), encoding="utf-8")
    with pytest.raises(DiagnosticError) as e:
        api.load_game(save)
    d = e.value.diagnostics[0]
    assert d.code == "E0317" and "const extra (added)" in d.message
    assert "--accept-changed-rules" in d.hint
    assert len(api.load_game(save, accept_changed_rules=True).history) == 1
    result = run("replay", str(save))
    assert result.exit_code == 1 and "E0317" in result.output
    assert run("replay", str(save), "--accept-changed-rules").exit_code == 0


def test_saving_is_atomic_and_a_failed_save_keeps_the_old_file(tmp_path):
    path, data = saved_game(tmp_path)
    before = path.read_text(encoding="utf-8")
    game = api.load_game(path)
    with pytest.raises(DiagnosticError) as e:
        api.save(game, tmp_path)  # a folder: cannot be written
    assert e.value.diagnostics[0].code == "E0009"
    with pytest.raises(DiagnosticError):
        api.save(game, "/dev/full")
    assert path.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("content", [b"", b"\xff\xfe", b"[" * 100_000, b"{}", b'{"format": 1}',
                                     json.dumps({"format": "rulebook-save", "version": 2,
                                                 "players": 10 ** 9}).encode()])
def test_malformed_saves_are_diagnostics(tmp_path, content):
    path = tmp_path / "s.json"
    path.write_bytes(content)
    with pytest.raises(DiagnosticError) as e:
        api.load_game(path, api.load("examples/tictactoe"))
    assert e.value.diagnostics[0].code == "E0314"


def test_quit_after_load_writes_the_loaded_save_not_another(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "rulebook-game.save.json"
    other.write_text("another game", encoding="utf-8")
    save = tmp_path / "mine.json"
    first = run("play", TTT, "--seat", "2=first", "--save-to", str(save), "--seed", "1",
                input="1\nq\n")
    assert first.exit_code == 0 and save.exists()
    again = run("play", TTT, "--seat", "2=first", "--load", str(save), input="1\nq\n")
    assert again.exit_code == 0, again.output
    assert other.read_text(encoding="utf-8") == "another game"
    assert len(json.loads(save.read_text())["history"]) == 4


def test_play_asks_before_writing_over_a_file_it_did_not_make(tmp_path):
    other = tmp_path / "other.json"
    other.write_text("keep me", encoding="utf-8")
    result = run("play", TTT, "--seat", "2=first", "--save-to", str(other), input="1\nq\nn\n")
    assert "already exists" in result.output and "Not saved" in result.output
    assert other.read_text(encoding="utf-8") == "keep me"
    result = run("play", TTT, "--seat", "2=first", "--save-to", str(other), input="1\nq\ny\n")
    assert "Saved to" in result.output
    assert json.loads(other.read_text(encoding="utf-8"))["format"] == "rulebook-save"
