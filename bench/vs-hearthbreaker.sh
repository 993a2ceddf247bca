#!/usr/bin/env bash
# Hearthbreaker's cards, random vs random, in Tessera and in Hearthbreaker itself (the
# Python anchor in ../shared/anchors/hearthbreaker), in one run on this machine.
#
# Prints CPU games/s for both and the ratio. CPU time is the whole process's user+sys
# time (Tessera: loading 455 cards, building plugins if needed, every game; Hearthbreaker:
# importing and patching its cards, every game), read from the OS after each process
# exits, so neither side's own clock is trusted. Hearthbreaker's own in-loop figure is
# printed beside it. Tessera's events per CPU second come from its per-game log lines.
#
# Usage: bench/vs-hearthbreaker.sh [GAMES]   (default 200; run by hand, not in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES="${1:-200}"
ANCHOR="$(cd .. && pwd)/shared/anchors/hearthbreaker"
[ -d "$ANCHOR" ] || { echo "error: $ANCHOR not found (the anchors live in ../shared)" >&2; exit 2; }
unset RUST_BACKTRACE
cargo build --release --quiet
# Plugins are built on the first run: do it outside the measurement.
./target/release/tessera run --server hearthbreaker.toml --games 1 --quiet >/dev/null

python3 - "$GAMES" "$ANCHOR" <<'PY'
import re, resource, subprocess, sys

games, anchor = int(sys.argv[1]), sys.argv[2]

def cpu_of(cmd, cwd):
    """Runs cmd; returns (its stdout, the CPU seconds it used, user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

out, t_cpu = cpu_of(["./target/release/tessera", "run", "--server", "hearthbreaker.toml",
                     "--agents", "random,random", "--games", str(games), "--seed", "1",
                     "--quiet"], ".")
events = sum(int(m) for m in re.findall(r"(\d+) events", out))
errors = re.search(r"errors (\d+)", out).group(1)

out_hb, h_cpu = cpu_of(["python3", "-W", "ignore", "bench_random_games.py",
                        "--mode", "jsonminions", "--games", str(games)], anchor)
h_loop = float(re.search(r"cpu=([\d.]+)s", out_hb).group(1))

t_rate, h_rate = games / t_cpu, games / h_cpu
print(f"games: {games} each, random vs random, Hearthbreaker's cards")
print(f"tessera        {t_cpu:7.2f} s CPU  {t_rate:8.1f} games/s  "
      f"({events} events, {events / t_cpu:,.0f} events/CPU s, errors {errors})")
print(f"hearthbreaker  {h_cpu:7.2f} s CPU  {h_rate:8.1f} games/s  "
      f"(its own game-loop clock: {games / h_loop:.1f} games/s)")
print(f"ratio tessera/hearthbreaker: {t_rate / h_rate:.2f}x "
      f"(vs its game-loop clock: {t_rate / (games / h_loop):.2f}x)")
PY

# Arena, Tessera's own game, for scale.
python3 - "$GAMES" <<'PY'
import resource, subprocess, sys
games = int(sys.argv[1])
subprocess.run(["./target/release/tessera", "run", "--agents", "random,random", "--games",
                str(games), "--seed", "1", "--quiet"], check=True, capture_output=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r.ru_utime + r.ru_stime
print(f"arena (tessera's own game): {games / cpu:.1f} games/s CPU")
PY
