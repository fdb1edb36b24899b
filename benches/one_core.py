#!/usr/bin/env python3
"""One core, equal work, side by side: kiln's knot bench against llvmpipe --cull,
alternated in short turns on the same core (issue 11's one-core target).

Running the knot bench once and llvmpipe once after it compares two stretches of time,
and on a shared host the two stretches can differ by 20 % or more for the same binary. Here
each round runs both sides for a couple of seconds each, one after the other on one core
(the order swapped every round), so contention that lasts longer than a round hits both.
Per round it takes kiln's median time per frame (the bench's samples) and llvmpipe's median
per-frame time; it prints every round's ratio (llvmpipe time over kiln time, > 1 = kiln
faster), then `ratio=`, the median of the rounds' ratios (each taken from two turns a few
seconds apart, so a slow stretch of the host cancels out), the ratio of the two sides'
medians over all rounds, and that of their tenth percentiles (the least disturbed times:
kiln's of its samples, each a mean over many frames, llvmpipe's of single frames,
so this one leans towards llvmpipe).

Equal work: the same knot (../shared/bench/make_assets.py), size, camera turn, one sample a
pixel, back faces culled on both sides (`--cull`), one core (`taskset`, `LP_NUM_THREADS=0`).

Usage: benches/one_core.py [KNOT_BENCH_BINARY] [--size 256 1024] [--rounds 7] [--core 1]
       [--level avx512|avx2|portable]
The binary is `cargo bench --bench knot --no-run`'s (the newest target/release/deps/knot-*
when not given). Needs: taskset; llvmpipe_bench.py's moderngl and Mesa (../shared/bench).
"""
import argparse, glob, os, re, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
shared = os.path.join(root, "..", "shared", "bench")
ap = argparse.ArgumentParser()
ap.add_argument("bench", nargs="?", default=None)
ap.add_argument("--size", type=int, nargs="*", default=[256, 1024])
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--core", type=int, default=1)
ap.add_argument("--level", default=None,
                help="kiln's instruction-set level: avx512, avx2 or portable "
                     "(default: the best this CPU runs, which the bench lists first)")
ap.add_argument("--seconds", type=float, default=2.0, help="kiln's measurement time a turn")
args = ap.parse_args()


def newest_bench():
    found = [p for p in glob.glob(os.path.join(root, "target", "release", "deps", "knot-*"))
             if os.access(p, os.X_OK) and not p.endswith(".d")]
    if not found:
        sys.exit("no knot bench binary: run `cargo bench --bench knot --no-run` first")
    return max(found, key=os.path.getmtime)


bench = os.path.abspath(args.bench or newest_bench())
if args.level is None:
    listed = subprocess.run([bench, "--list"], cwd=root, capture_output=True, text=True).stdout
    best = re.search(r"knot/render/(\w+)/256x256 aa1", listed)
    if not best:
        sys.exit(f"{bench} --list names no render bench:\n{listed[-2000:]}")
    args.level = best.group(1)
assets = os.path.join(root, "target", "bench-assets")
if not os.path.exists(os.path.join(assets, "mesh.npz")):
    subprocess.run([sys.executable, os.path.join(shared, "make_assets.py"), "--out", assets],
                   check=True, stdout=subprocess.DEVNULL)
pin = ["taskset", "-c", str(args.core)]


def kiln_turn(size):
    """kiln's per-frame times (ms) of one bench run: one mean per sample."""
    name = f"knot/render/{args.level}/{size}x{size} aa1"
    samples = 20
    env = dict(os.environ, KILN_BENCH_RAW="1", KILN_BENCH_SAMPLES=str(samples),
               KILN_BENCH_SAMPLE_MS=str(max(1, int(args.seconds * 1000 / samples))))
    cmd = pin + [bench, "--bench", name + "$"]
    # The bench finds its assets under target/ of the working directory.
    run = subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"{bench} failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
    found = [l.split("\t", 1)[1] for l in run.stdout.splitlines() if l.startswith(f"raw {name}\t")]
    if len(found) != 1:
        sys.exit(f"expected one result for {args.level} at {size}², found {len(found)} "
                 "(the levels this CPU runs are in the bench's --list)")
    return [float(t) for t in found[0].split()]


def llvmpipe_turn(size):
    """llvmpipe's (median, p10) per-frame time (ms) of one run."""
    # About `--seconds` of llvmpipe at ~2 ms a 256² frame, its time growing with the area.
    frames = max(40, int(args.seconds * 1000 / (2.0 * (size / 256) ** 2)))
    env = dict(os.environ, LP_NUM_THREADS="0")
    cmd = pin + [sys.executable, os.path.join(shared, "llvmpipe_bench.py"), "--cull",
                 "--size", str(size), "--frames", str(frames),
                 "--mesh", os.path.join(assets, "mesh.npz"), "--tex", os.path.join(assets, "tex.png")]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"llvmpipe_bench.py failed (exit {run.returncode}; ../shared/bench/setup.sh "
                 f"installs Mesa and moderngl):\n{run.stderr[-2000:]}")
    out = run.stdout
    m = re.search(r"median=([\d.]+) p10=([\d.]+)", out)
    if not m:
        sys.exit(f"llvmpipe_bench.py printed no timing:\n{out}")
    return float(m.group(1)), float(m.group(2))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


for size in args.size:
    rounds = []
    for r in range(args.rounds):
        if r % 2 == 0:
            k = kiln_turn(size)
            lp = llvmpipe_turn(size)
        else:
            lp = llvmpipe_turn(size)
            k = kiln_turn(size)
        km, kp = statistics.median(k), pct(k, 0.1)
        rounds.append((km, kp, lp[0], lp[1]))
        print(f"{size}² round {r + 1}: kiln {km:.3f} ms (p10 {kp:.3f})  "
              f"llvmpipe {lp[0]:.3f} ms (p10 {lp[1]:.3f})  ratio {lp[0] / km:.2f}", flush=True)
    km = statistics.median(r[0] for r in rounds)
    kp = statistics.median(r[1] for r in rounds)
    lm = statistics.median(r[2] for r in rounds)
    lp10 = statistics.median(r[3] for r in rounds)
    ratios = [r[2] / r[0] for r in rounds]
    print(f"{size}², kiln at {args.level}: kiln median {km:.3f} ms, llvmpipe median {lm:.3f} ms, one core, --cull, "
          f"{args.rounds} rounds")
    print(f"{size}²: ratio={statistics.median(ratios):.3f} min={min(ratios):.3f} "
          f"max={max(ratios):.3f} of_medians={lm / km:.3f} of_p10={lp10 / kp:.3f}")
