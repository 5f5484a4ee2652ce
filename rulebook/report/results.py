"""The results of a simulation: one record per game, and the run they came from.

Everything but time is a function of the seed: two runs with the same settings give the same
`to_dict(timing=False)`, byte for byte in JSON, whatever ran them (one process, several, a
Dask cluster). Time measured is kept apart (`phase_seconds`, `seconds`)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field

from ..interpreter.simulate import GameRecord


@dataclass
class GameResult(GameRecord):
    """A game as `simulate` records it (`GameRecord`), with what the report reads besides."""
    # (option name, where its decision is written, seat, decisions offering it, times taken)
    options: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    # (options at a decision, decisions with that many)
    widths: list[tuple[int, int]] = field(default_factory=list)
    # decisions made before an error (seat, option id), the first ones, to replay it
    history: list[tuple[int, str]] = field(default_factory=list)
    phase_seconds: dict[str, float] = field(default_factory=dict)  # time: not reproducible

    def to_dict(self, timing: bool = True) -> dict:
        data = asdict(self)
        data["scores"] = {str(k): v for k, v in self.scores.items()}
        if not timing:
            del data["phase_seconds"]
        return data


@dataclass
class Setting:
    """What was simulated: a ruleset with its variants, the players and who plays each seat.
    Picklable and small: it is what workers receive to load the rules themselves."""
    ruleset: str
    variants: tuple[str, ...] = ()
    players: int | None = None
    agent: str = "random"
    seat_agents: tuple[tuple[int, str], ...] = ()  # seats not played by `agent`
    invariants: str = "turn"

    @property
    def agents(self) -> str | dict:
        return {"*": self.agent, **dict(self.seat_agents)} if self.seat_agents else self.agent

    def label(self) -> str:
        """How a comparison names this setting: `mygame+variant`, `mygame@1=first`."""
        text = "+".join([self.ruleset, *self.variants])
        agents = [f"{s}={k}" for s, k in self.seat_agents]
        if self.agent != "random":
            agents.insert(0, self.agent)
        return text + ("@" + ",".join(agents) if agents else "")


@dataclass
class SimulationResults:
    setting: Setting
    title: str                 # the game's title
    players: int               # players, as the header counts them
    seats: int                 # players and automaton seats
    seed: int
    games: list[GameResult]
    seconds: float = 0.0       # wall time of the run (not reproducible)
    ran_on: str = "1 process"  # not reproducible either: where it ran

    @property
    def automaton_seats(self) -> list[int]:
        return list(range(self.players + 1, self.seats + 1))

    def completed(self) -> list[GameResult]:
        return [g for g in self.games if g.error is None]

    def errors(self) -> list[GameResult]:
        return [g for g in self.games if g.error is not None]

    def to_dict(self, timing: bool = True) -> dict:
        data = {"setting": asdict(self.setting), "title": self.title, "players": self.players,
                "seats": self.seats, "seed": self.seed,
                "games": [g.to_dict(timing) for g in self.games]}
        if timing:
            data.update(seconds=self.seconds, ran_on=self.ran_on)
        return data

    def to_json(self, timing: bool = True) -> str:
        return json.dumps(self.to_dict(timing), sort_keys=True, separators=(",", ":"))

    def games_csv(self) -> str:
        """One row per game: seed, winners, each seat's score, length and error code."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        seats = range(1, self.seats + 1)
        writer.writerow(["game", "seed", "winners", *(f"score_{s}" for s in seats), "decisions",
                         "rounds", "turns", "error"])
        for g in self.games:
            writer.writerow([g.index, g.seed, " ".join(map(str, g.winners)),
                             *(g.scores.get(s, "") for s in seats), g.decisions, g.rounds,
                             g.turns, g.error["code"] if g.error else ""])
        return out.getvalue()

    @classmethod
    def from_dict(cls, data: dict) -> "SimulationResults":
        setting = data["setting"]
        setting = Setting(**{**setting, "variants": tuple(setting["variants"]),
                             "seat_agents": tuple(map(tuple, setting["seat_agents"]))})
        games = []
        for g in data["games"]:
            g = dict(g, scores={int(k): v for k, v in g["scores"].items()},
                     options=[tuple(o) for o in g["options"]],
                     widths=[tuple(w) for w in g["widths"]],
                     history=[tuple(h) for h in g["history"]])
            games.append(GameResult(**g))
        return cls(Setting(**asdict(setting)), data["title"], data["players"], data["seats"],
                   data["seed"], games, data.get("seconds", 0.0), data.get("ran_on", ""))
