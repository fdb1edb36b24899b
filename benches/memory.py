#!/usr/bin/env python3
"""Peak memory of whole bakes as the frame count grows (issue 11's "memory flat in frame
count"). Each bake runs once as its own process; its peak resident set comes from wait4().

- knot, grid sheet: the knot batch of ../shared/bench/batch_compare.py (8 directions, 256²,
  perspective, one sheet + JSON) with 60 and with 240 frames per direction (four clips of 60:
  a grid row of 240 frames is wider than a page). The second bake may exceed the first by
  at most the larger sheet's own bytes.
- knot, packed and trimmed sheet: the same two bakes with `pack: { layout: packed, trim:
  true }`.
- the issue's big recipe: 8192² frames, antialias 4, 8 directions, per-frame PNGs, under
  `prlimit --as=2000000000`, with --huge-frames frames per direction (2 and 8 by default;
  the issue's 64 takes about 13 minutes on two cores).

Usage: benches/memory.py KILN_BINARY [--huge-frames 2 8] [--workdir DIR]
Needs: ../shared/bench/make_assets.py (numpy, Pillow); prlimit (util-linux).
"""
import argparse, os, shutil, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
shared = os.path.join(here, "..", "..", "shared", "bench")
ap = argparse.ArgumentParser()
ap.add_argument("kiln")
ap.add_argument("--huge-frames", type=int, nargs="*", default=[2, 8])
ap.add_argument("--workdir", default=None)
args = ap.parse_args()
kiln = os.path.abspath(args.kiln)

work = args.workdir or tempfile.mkdtemp(prefix="kiln-memory-")
assets = os.path.join(work, "assets")
if not os.path.exists(os.path.join(assets, "knot.rsm")):
    subprocess.run([sys.executable, os.path.join(shared, "make_assets.py"), "--out", assets],
                   check=True, stdout=subprocess.DEVNULL)
MIB = 1 << 20


def peak(cmd):
    """(peak RSS in bytes, exit code, seconds, stderr) of one process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=assets, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), time.perf_counter() - t, err


def knot(name, clips, pack):
    clip_list = ", ".join(f"{{ name: c{c}, start: {c}, end: {c + 1}, frames: 60 }}"
                          for c in range(clips))
    path = os.path.join(assets, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(f"""jobs:
  - name: {name}
    model: knot.rsm
    data: [data]
    clips: [{clip_list}]
    directions: 8
    pitch: 20
    size: 256x256
    camera: {{ projection: perspective, fov: 35, padding: 0.05 }}
    {pack}
    output: {{ dir: out, sheet: "{{name}}.png", gif: false }}
""")
    return path


ok = True
for label, pack in [("grid sheet", ""), ("packed, trimmed", "pack: { layout: packed, trim: true }")]:
    rows = []
    for clips in (1, 4):
        name = f"knot_{'grid' if not pack else 'packed'}_{clips * 60}"
        shutil.rmtree(os.path.join(assets, "out"), ignore_errors=True)
        rss, code, secs, err = peak([kiln, "bake", "--quiet", "--force", knot(name, clips, pack)])
        pages = [f for f in os.listdir(os.path.join(assets, "out")) if f.endswith(".png")]
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = None  # kiln's own sheets, not untrusted input
        sheet = sum(Image.open(os.path.join(assets, "out", f)).size[0] *
                    Image.open(os.path.join(assets, "out", f)).size[1] * 4 for f in pages)
        rows.append((clips * 60, rss, sheet, code, secs))
        print(f"knot {label:16s} {clips * 60:4d} frames/direction: peak RSS {rss / MIB:7.1f} MiB, "
              f"sheet pixels {sheet / MIB:6.1f} MiB, {secs:.2f} s, exit {code}")
    (_, r1, _, _, _), (_, r2, s2, _, _) = rows
    fits = r2 <= r1 + s2
    ok &= fits
    print(f"  240 frames: {r2 / MIB:.1f} MiB <= 60 frames + larger sheet = "
          f"{(r1 + s2) / MIB:.1f} MiB: {'yes' if fits else 'NO'}")

model = os.path.abspath(os.path.join(here, "..", "recipes", "samples", "data", "model", "kiln",
                                     "beacon.rsm"))
for frames in args.huge_frames:
    path = os.path.join(assets, f"huge{frames}.yaml")
    with open(path, "w") as f:
        f.write(f"""jobs:
  - name: huge
    model: {model}
    size: 8192x8192
    antialias: 4
    directions: 8
    clip: {{ frames: {frames} }}
    output: {{ dir: out/huge, sheet: false, gif: false, frames: "f_{{dir}}_{{frame}}.png" }}
""")
    shutil.rmtree(os.path.join(assets, "out"), ignore_errors=True)
    rss, code, secs, err = peak(["prlimit", "--as=2000000000", kiln, "bake", "--quiet", "--force",
                                 path])
    # 8192² PNGs take about 3.5 MB each: do not leave gigabytes behind.
    shutil.rmtree(os.path.join(assets, "out"), ignore_errors=True)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    print(f"8192² aa4, 8 x {frames} frames, prlimit --as=2000000000: peak RSS {rss / MIB:.1f} MiB, "
          f"{secs:.1f} s, exit {code} {last}")
    ok &= code == 0 or "memory limit" in err
shutil.rmtree(os.path.join(assets, "out"), ignore_errors=True)
sys.exit(0 if ok else 1)
