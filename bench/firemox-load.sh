#!/usr/bin/env bash
# How long loading Magic Project's 6,620 card files takes (issue 17: < 2 s), in one run
# on this machine, alternating the contenders, wall and CPU time medians:
#
#   native  the firemox loader's own code compiled natively, one thread, reading, parsing
#           and translating every card file (plugins/ example `report`): the baseline;
#   cold    `tessera check --server firemox.toml` with the load cache off: the mtg rules,
#           their Forge scripts and every card file through the wasm loader (on every
#           core), all content compiled, every warning printed;
#   warm    the same with the load cache on and filled (replies kept from the run before);
#   mtg     `tessera check --server mtg.toml`: the part of the check that is not Firemox's.
#
# Usage: bench/firemox-load.sh [RUNS]   (default 3; run by hand, not in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
CORPUS="$(cd .. && pwd)/shared/corpora/firemox"
[ -d "$CORPUS/cards" ] || { echo "error: $CORPUS/cards not found (the corpora live in ../shared)" >&2; exit 2; }
unset RUST_BACKTRACE
cargo build --release --quiet --bin tessera
(cd plugins && cargo build --release --quiet -p firemox --features native --example report)
# Plugins built and compiled modules cached outside the measurement; the load cache filled.
./target/release/tessera check --server firemox.toml >/dev/null 2>&1 || true

python3 - "$RUNS" "$CORPUS" <<'PY'
import os, resource, statistics, subprocess, sys, time

runs, corpus = int(sys.argv[1]), sys.argv[2]
env_cold = dict(os.environ, TESSERA_LOAD_CACHE="off")
contenders = {
    "native": (["plugins/target/release/examples/report", corpus], None),
    "cold": (["./target/release/tessera", "check", "--server", "firemox.toml"], env_cold),
    "warm": (["./target/release/tessera", "check", "--server", "firemox.toml"], None),
    "mtg": (["./target/release/tessera", "check", "--server", "mtg.toml"], None),
}

def measure(cmd, env):
    """Runs cmd; returns (wall seconds, CPU seconds user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

times = {k: [] for k in contenders}
for _ in range(runs):
    for name, (cmd, env) in contenders.items():
        times[name].append(measure(cmd, env))

med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
       for k, v in times.items()}
base = med["native"][0]
for name, (wall, cpu) in med.items():
    print(f"{name:7} {wall:6.2f} s wall  {cpu:6.2f} s CPU  {wall / base:5.2f}x native wall")
for name in ("cold", "warm"):
    print(f"firemox's part ({name}, minus mtg): {med[name][0] - med['mtg'][0]:.2f} s wall")
PY
