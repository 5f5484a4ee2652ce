"""`rulebook serve` as a person runs it: links printed, a decision made through one, the server
stopped, and `--resume` continuing the game where it stood with the same links."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request


def start(*args):
    proc = subprocess.Popen([sys.executable, "-m", "rulebook", "serve", *args, "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Press Ctrl+C"):
            return proc, "".join(lines)
    raise AssertionError("the server did not start: " + "".join(lines))


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def test_serve_prints_links_and_resumes_the_game_with_them(tmp_path):
    state = tmp_path / "tables"
    proc, out = start("liqueur", "--players", "3", "--seat", "3=random", "--state-dir",
                      str(state), "--bot-delay", "0")
    try:
        links = dict(re.findall(r"(player \d|spectators): (http://\S+)", out))
        assert set(links) == {"player 1", "player 2", "spectators"}
        assert "player 3: bot (random)" in out
        assert all(url.startswith("http://127.0.0.1:") for url in links.values())
        api = {who: url.replace("/t/", "/api/") for who, url in links.items()}
        seat = 3
        while seat == 3:  # the bot may be first: it moves in the server's own time
            seat = get(api["player 1"])["decision"]["player"]
        mine = get(api[f"player {seat}"])
        option = mine["decision"]["options"][0]["id"]
        made = post(api[f"player {seat}"] + "/decide",
                    {"option": option, "version": mine["version"]})
        assert made["version"] > mine["version"]
        before = get(api["spectators"])
    finally:
        proc.terminate()
        proc.wait(30)
    proc, out = start("--resume", str(state))
    try:
        port = re.search(r"http://127.0.0.1:(\d+)/", out).group(1)
        again = get(re.sub(r":\d+/", f":{port}/", api["spectators"]))
        assert again["version"] >= before["version"] and again["log"][:len(before["log"])] == \
            before["log"]
    finally:
        proc.terminate()
        proc.wait(30)
