"""How long `rulebook lsp` takes from an edit to its diagnostics, on the largest bundled ruleset.

Run:  python benchmarks/bench_lsp.py [--edits N] [--file PATH]
A real client (pygls) starts `rulebook lsp` over stdio, opens the file, then makes edits spread
over the file (a space added in a declaration, as typing does) and times each from sending
`didChange` to receiving `publishDiagnostics` for it. Then the same edits are timed in process,
stage by stage. Prints figures only; it asserts nothing (the goal, diagnostics within 100 ms of an
edit, is read off the output). On a shared machine wall time includes waiting for a core, so
the server's CPU time per edit (from /proc, where there is one) is printed beside it.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from bench_args import positive_int
from lsprotocol import types as T
from pygls import uris
from pygls.lsp.client import BaseLanguageClient

ROOT = Path(__file__).resolve().parents[1]


def largest_ruleset() -> Path:
    games = [p for p in (ROOT / "rulesets").glob("*/*.rules")
             if p.read_text().lstrip().startswith(("game", "#"))]
    return max(games, key=lambda p: len(p.read_text().splitlines()))


def edited(text: str, k: int, edits: int) -> str:
    """The text with a space typed at the end of a line in the k-th part of the file."""
    lines = text.split("\n")
    at = max(1, (k + 1) * len(lines) // (edits + 1))
    while at < len(lines) - 1 and (not lines[at].strip() or lines[at].rstrip().endswith("\\")):
        at += 1
    lines[at] = lines[at] + " "
    return "\n".join(lines)


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process so far (Linux /proc), or None."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def summary(label: str, times: list[float]) -> None:
    times = sorted(times)
    print(f"{label:<34} median {ms(statistics.median(times))}   "
          f"p90 {ms(times[int(0.9 * (len(times) - 1))])}   max {ms(times[-1])}   (n={len(times)})")


async def over_stdio(path: Path, edits: int) -> None:
    client = BaseLanguageClient("bench", "1")
    arrived: asyncio.Queue = asyncio.Queue()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: T.PublishDiagnosticsParams) -> None:
        arrived.put_nowait((time.perf_counter(), params))

    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "rulebook", "lsp")
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities()))
    client.initialized(T.InitializedParams())
    print(f"server started and initialized      {ms(time.perf_counter() - started)}")
    uri = uris.from_fs_path(str(path))
    text = path.read_text()

    async def diagnostics_for(sent: float) -> tuple[float, int]:
        while True:
            when, params = await arrived.get()
            if params.uri == uri:
                return when - sent, len(params.diagnostics)

    sent = time.perf_counter()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=uri, language_id="rules", version=1, text=text)))
    first, count = await diagnostics_for(sent)
    print(f"open -> diagnostics                 {ms(first)}   ({count} diagnostics)")
    times = []
    pid = getattr(getattr(client, "_server", None), "pid", None)
    cpu_before = cpu_seconds(pid)
    for k in range(edits):
        sent = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=k + 2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(
                text=edited(text, k, edits))]))
        took, count = await diagnostics_for(sent)
        times.append(took)
    summary("edit -> diagnostics (over stdio)", times)
    cpu_after = cpu_seconds(pid)
    if cpu_before is not None and cpu_after is not None:
        print(f"server CPU time per edit (mean)     {ms((cpu_after - cpu_before) / edits)}")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def in_process(path: Path, edits: int) -> None:
    from rulebook.lsp.documents import Documents, check_document

    docs = Documents()
    text = path.read_text()
    file = str(path)
    docs.set(file, text)
    check_document(docs, file)
    stages: dict[str, list[float]] = {"parse (changed pieces)": [], "check (schema + semantic)": [],
                                      "both, CPU time": []}
    for k in range(edits):
        docs.set(file, edited(text, k, edits))
        c0, t0 = time.process_time(), time.perf_counter()
        docs.parse(file)
        t1 = time.perf_counter()
        check_document(docs, file)
        t2, c2 = time.perf_counter(), time.process_time()
        stages["parse (changed pieces)"].append(t1 - t0)
        stages["check (schema + semantic)"].append(t2 - t1)
        stages["both, CPU time"].append(c2 - c0)
    for label, times in stages.items():
        summary(f"  in process: {label}", times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=positive_int, default=20, help="edits to time (default 20)")
    parser.add_argument("--file", type=Path, help="the rules file (default: the largest game)")
    args = parser.parse_args()
    import os
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    path = (args.file or largest_ruleset()).resolve()
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
          f"{len(path.read_text().splitlines())} lines, {args.edits} edits")
    asyncio.run(over_stdio(path, args.edits))
    in_process(path, args.edits)


if __name__ == "__main__":
    main()
