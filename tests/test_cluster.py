"""Simulations on a real Dask LocalCluster (two worker processes): the same results as one
process, byte for byte, even when a worker is killed in the middle of the run."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

from rulebook.cli import main
from rulebook.report import Setting, simulate

COIN = str(Path(__file__).parent / "data" / "report" / "coin.rules")
GAMES = 120


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def one_process():
    return simulate(Setting(COIN), GAMES, seed=9).to_json(timing=False)


def test_a_cluster_gives_the_results_of_one_process(client, one_process):
    results = simulate(Setting(COIN), GAMES, seed=9, cluster=client)
    assert results.ran_on == "Dask cluster of 2 workers"
    assert results.to_json(timing=False) == one_process


def test_a_worker_killed_mid_run_changes_nothing(client, one_process):
    before = set(client.scheduler_info()["workers"])
    killed = []

    def kill_one_worker(done: int) -> None:
        if not killed:  # after the first batch: others are running on both workers
            pids = client.run(os.getpid)
            address = sorted(pids)[0]
            os.kill(pids[address], signal.SIGKILL)
            killed.append(address)

    results = simulate(Setting(COIN), GAMES, seed=9, cluster=client, progress=kill_one_worker)
    assert killed and killed[0] in before
    client.wait_for_workers(2, timeout=30)  # the nanny starts a fresh worker in its place
    assert killed[0] not in client.scheduler_info()["workers"]
    assert results.to_json(timing=False) == one_process


def test_cli_refuses_an_address_that_is_no_cluster():
    result = CliRunner().invoke(main, ["simulate", COIN, "--games", "2", "--cluster", "nowhere"])
    assert result.exit_code == 1 and "E0340" in result.output and "Traceback" not in result.output
