"""Where a server process spends its time under the orders load (issue 21, item 2): the
referee with `--workers` processes, `--clients` keep-alive clients sending signed `roll`
orders for `--seconds`, and py-spy sampling every worker.

    .venv/bin/python bench/profile_orders.py [--workers 1] [--clients 8] [--seconds 10]
                                             [--py-spy PATH] [--flamegraph]

py-spy is not a dependency of the project: install it anywhere (`pip install py-spy`
into a virtualenv of its own) and give its path, or have it on PATH. Writes, per worker,
the raw stacks (`bench/results/profile-<pid>.txt`, collapsed: any flame graph tool
reads them) and prints the frames with the most samples, self (where the time is) and
inclusive (what calls it); or, with `--flamegraph`, a flame graph
(`bench/results/profile-<pid>.svg`). py-spy counts a thread that waits for a core as
busy, so on a machine with fewer cores than busy processes the shares are of wall time,
not CPU time; the server CPU per order printed beside them is measured (Linux /proc).
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import harness as h

RESULTS = Path(__file__).with_name("results")


def top(raw: Path, count: int) -> str:
    """The `count` frames with the most samples, self and inclusive, in `raw` (py-spy's
    collapsed stacks: `frame;frame;... samples`)."""
    own: collections.Counter[str] = collections.Counter()
    within: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        samples = int(n)
        total += samples
        frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
        own[frames[-1]] += samples
        for frame in set(frames):
            within[frame] += samples
    if not total:
        return f"{raw.name}: no samples"

    def listed(counter: collections.Counter[str]) -> str:
        return "\n".join(f"  {n * 100 / total:5.1f}%  {frame[:140]}"
                         for frame, n in counter.most_common(count))

    return (f"{raw.name}: {total} samples\n self:\n{listed(own)}\n inclusive:\n"
            f"{listed(within)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--py-spy", default=shutil.which("py-spy") or "")
    parser.add_argument("--flamegraph", action="store_true",
                        help="write flame graphs (SVG) instead of the raw stacks and their "
                             "summary (one sampler per process: two would skew each other)")
    args = parser.parse_args()
    if not args.py_spy or not Path(args.py_spy).exists():
        sys.exit("py-spy not found: pip install py-spy (anywhere) and pass --py-spy PATH")
    RESULTS.mkdir(exist_ok=True)
    with h.database() as db:
        h.migrate(db.url)
        with h.referee(db.url, workers=args.workers, RATE_LIMIT="0") as server:
            games = h.create_games(server.base, args.games)
            h.warm_up(server.base, games, workers=args.workers)
            seats = [s for g in games for s in g.seats]
            # With several workers, the supervisor and its resource tracker idle: only
            # the spawned workers serve.
            workers = [p for p in server.pids() if args.workers == 1 or "spawn_main" in
                       Path(f"/proc/{p}/cmdline").read_text(errors="replace")]
            seconds = str(int(args.seconds) + 1)
            suffix = "svg" if args.flamegraph else "txt"
            spies = [subprocess.Popen(
                [args.py_spy, "record", "--rate", "200", "--duration", seconds, "--format",
                 "flamegraph" if args.flamegraph else "raw",
                 "--output", str(RESULTS / f"profile-{pid}.{suffix}"), "--pid", str(pid)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pid in workers]
            time.sleep(0.5)
            streams = h.order_streams(seats, args.clients,
                                      int(args.seconds * 3000) // args.clients + 200)
            result = h.load(server.base, "referee", streams, seconds=args.seconds - 1,
                            max_requests=10**6,
                            cpu={"server": server.pids, "postgres": db.pids})
            for spy in spies:
                spy.wait()
    row = result.row()
    print(f"{row['per_s']} orders/s, p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, "
          f"CPU ms per order: {row['cpu_ms']}")
    for pid in workers:
        if args.flamegraph:
            print(f"flame graph: {RESULTS / f'profile-{pid}.svg'}")
        else:
            print(top(RESULTS / f"profile-{pid}.txt", args.top))


if __name__ == "__main__":
    main()
