#!/usr/bin/env python3
"""What each sprite look adds to a bake: the knot batch of ../shared/bench/batch_compare.py
(8 directions x F frames, perspective 35 deg, one sheet + JSON; transparent background, as
sprites with looks have), baked plain and with each
`look:` variant, runs interleaved round by round; prints the median wall time of each and its
cost over the plain bake, per frame and in percent.

Usage: benches/looks_cost.py KILN_BINARY [--size 256] [--frames 60] [--rounds 5] [--aa 1]
Needs: ../shared/bench/make_assets.py (numpy, Pillow).
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
shared = os.path.join(here, "..", "..", "shared", "bench")
ap = argparse.ArgumentParser()
ap.add_argument("kiln")
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--frames", type=int, default=60)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--aa", type=int, default=1)
ap.add_argument("--workdir", default=None)
args = ap.parse_args()

work = args.workdir or tempfile.mkdtemp(prefix="kiln-looks-")
assets = os.path.join(work, "assets")
if not os.path.exists(os.path.join(assets, "knot.rsm")):
    subprocess.run([sys.executable, os.path.join(shared, "make_assets.py"), "--out", assets],
                   check=True, stdout=subprocess.DEVNULL)

VARIANTS = {
    "plain": None,
    "outline": "{outline: {width: 2}}",
    "outline_inner": "{outline: {width: 2, inner: 0.05}}",
    "drop_shadow": "{drop_shadow: {offset: [4, 4], blur: 2}}",
    "palette": "{palette: {colors: 16, dither: ordered}}",
    "outline+drop+palette": "{outline: {width: 2}, drop_shadow: {offset: [4, 4], blur: 2}, "
                            "palette: {colors: 16, dither: ordered}}",
    "palette_diffusion": "{palette: {colors: 16, dither: diffusion}}",
    "cel": "{shading: cel, cel: {bands: 3, rim: 0.3}}",
    "ground_shadow": "{ground_shadow: {from: light, softness: 2}}",
}


def recipe(name, look):
    path = os.path.join(assets, f"looks_{name.replace('+', '_')}.yaml")
    with open(path, "w") as f:
        f.write(f"""jobs:
  - name: knot
    model: knot.rsm
    data: [data]
    clip: {{ start: 0, end: 1, frames: {args.frames} }}
    directions: 8
    pitch: 20
    size: {args.size}x{args.size}
    antialias: {args.aa}
    camera: {{ projection: perspective, fov: 35, padding: 0.05 }}
    background: transparent
    output: {{ dir: out_{name.replace('+', '_')}, sheet: "{{name}}.png", gif: false }}
""")
        if look:
            f.write(f"    look: {look}\n")
    return path


def run(path):
    # A bake skips a job whose inputs and outputs are unchanged: start clean.
    shutil.rmtree(path[:-5].replace("looks_", "out_"), ignore_errors=True)
    t = time.perf_counter()
    p = subprocess.run([args.kiln, "bake", "--quiet", path], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode:
        sys.exit("kiln bake failed: " + p.stderr[-400:])
    return dt


recipes = {n: recipe(n, l) for n, l in VARIANTS.items()}
for p in recipes.values():
    run(p)  # warm caches
times = {n: [] for n in recipes}
for r in range(args.rounds):
    for n, p in recipes.items():
        times[n].append(run(p))
images = 8 * args.frames
base = statistics.median(times["plain"])
print(f"{images} images at {args.size}x{args.size} aa{args.aa}, median of {args.rounds} rounds")
for n, ts in times.items():
    m = statistics.median(ts)
    extra = (m - base) / images * 1000
    print(f"{n:22s} {m:7.3f} s  {extra:+7.3f} ms/frame  {100 * (m - base) / base:+6.1f} %")
shutil.rmtree(work, ignore_errors=True) if not args.workdir else None
