#!/usr/bin/env python3
"""The gallery and the verify report, opened in headless Chromium.

Bakes a catalogue of kiln's samples (copied under many names, one broken
file among them) with a paged gallery, and a verify report with one
mismatch, in a temporary folder; opens every page from file:// in Chromium,
driven over the DevTools protocol on a pipe (no port, no network); and
asserts that every image loads, the counts shown are the bake's, the filter
and the report's controls work, and the console has no errors. Saves a
screenshot of each page kind.

    python3 tests/browser/check.py --kiln target/debug/kiln --shots target/browser

Exit 0 when every check passes, 1 when one fails, 2 when Chromium or kiln
is missing. Only the Python standard library.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE_SIZE = 10
COPIES = 12  # of each sample model: 24 models, a broken one, 3 pages


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)
    print(f"ok: {what}")


class Browser:
    """Chromium over --remote-debugging-pipe: fd 3 in, fd 4 out, each
    message JSON ended by a NUL byte."""

    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def fds():
            # Copies first: a pipe end may itself be fd 3 or 4, and dup2
            # onto itself would leave it close-on-exec.
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--allow-file-access-from-files",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            # The pipes are moved to fds 3 and 4 after the fork; closing
            # the others would close those too.
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=open(Path(profile).with_suffix(".log"), "wb"),
        )
        self.log = Path(profile).with_suffix(".log")
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        try:
            os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        except BrokenPipeError:
            raise Failed("Chromium has exited:\n" + self.log.read_text(errors="replace")[-2000:])
        want = self.next_id
        deadline = time.time() + 60
        while time.time() < deadline:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise Failed(f"{method}: {m['error']}")
                return m.get("result", {})
        raise Failed(f"{method}: no answer in 60 s")

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise Failed("Chromium closed the pipe:\n" + self.log.read_text(errors="replace")[-2000:])
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(raw)
        if "method" in m:
            self.events.append(m)
        return m

    def wait_event(self, method, seconds=30):
        deadline = time.time() + seconds
        seen = len(self.events)
        while time.time() < deadline:
            for e in self.events[seen:]:
                if e["method"] == method:
                    return e
            seen = len(self.events)
            self.read()
        raise Failed(f"no {method} in {seconds} s")

    def open_tab(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget",
            {"targetId": target["targetId"], "flatten": True},
            session=False,
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )

    def goto(self, path):
        self.events.clear()
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        self.wait_event("Page.loadEventFired")

    def js(self, expr):
        r = self.send(
            "Runtime.evaluate",
            {"expression": expr, "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in r:
            raise Failed(f"script error: {r['exceptionDetails']}")
        return r["result"].get("value")

    def errors(self):
        """Console errors, uncaught exceptions and failed loads so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("text", "exception"))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(p["entry"]["text"] + " " + p["entry"].get("url", ""))
        return out

    def screenshot(self, path):
        h = self.js("document.documentElement.scrollHeight")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": min(int(h), 4000), "deviceScaleFactor": 1, "mobile": False},
        )
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
        print(f"screenshot: {path}")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (Failed, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# Lazy images load once they are needed; the check needs them all, so each
# is made eager and awaited. Returns the images that did not load.
LOAD_ALL = """
Promise.all([...document.images].map(i => {
  i.loading = 'eager';
  if (i.complete) return null;
  return new Promise(r => { i.onload = i.onerror = r; setTimeout(r, 20000); });
})).then(() => [...document.images]
  .filter(i => !i.complete || i.naturalWidth === 0)
  .map(i => i.getAttribute('src')))
"""

VISIBLE = "(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null).length"


def kiln(exe, args, cwd, ok=(0,)):
    r = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode not in ok:
        raise Failed(f"kiln {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def make_gallery(exe, work):
    """A catalogue of COPIES × the two samples and one broken file."""
    shutil.copytree(REPO / "recipes/samples", work / "recipes/samples")
    many = work / "recipes/samples/data/model/many"
    many.mkdir()
    src = REPO / "recipes/samples/data/model/kiln"
    for k in range(COPIES):
        shutil.copy(src / "beacon.rsm", many / f"beacon_{k:02}.rsm")
        shutil.copy(src / "windmill.rsm2", many / f"windmill_{k:02}.rsm2")
    (many / "broken.rsm").write_bytes(b"GRSM\x01\x04" + b"\xff" * 9)
    (work / "recipes/gallery.yaml").write_text(
        "jobs:\n"
        "  - name: models\n"
        "    model: samples/data/model/**/*.rsm*\n"
        "    size: 64x64\n"
        "    directions: 2\n"
        "    clip: { frames: 4 }\n"
        "    output:\n"
        '      dir: "../out/gallery/{path}"\n'
        '      sheet: "{stem}.png"\n'
        '      gif: "{stem}_{dir}.gif"\n'
        f"gallery: {{ file: ../out/gallery/index.html, page_size: {PAGE_SIZE} }}\n"
    )
    r = kiln(exe, ["bake", "--json", "recipes/gallery.yaml"], work, ok=(1,))
    jobs = [j for j in json.loads(r.stdout)["jobs"] if j["kind"] == "job"]
    return work / "out/gallery", jobs


def make_report(exe, work):
    """The bundled example baked, one GIF's golden swapped for another's."""
    shutil.copy(REPO / "recipes/example.yaml", work / "recipes/example.yaml")
    kiln(exe, ["bake", "-q", "recipes/example.yaml"], work)
    out = work / "out/windmill"
    shutil.copy(out / "windmill_1.gif", out / "windmill_0.gif")
    r = kiln(
        exe,
        ["verify", "--json", "--report", "report", "recipes/example.yaml"],
        work,
        ok=(1,),
    )
    return work / "report/index.html", json.loads(r.stdout)["files"]


def check_gallery(b, folder, jobs, shots):
    # index.html, index-2.html, … in page order.
    pages = sorted(
        folder.glob("index*.html"),
        key=lambda p: int(p.stem.partition("-")[2] or 1),
    )
    want_pages = -(-len(jobs) // PAGE_SIZE)
    check(len(pages) == want_pages, f"{len(jobs)} jobs make {want_pages} gallery pages")
    seen = []
    for k, page in enumerate(pages):
        b.goto(page)
        missing = b.js(LOAD_ALL)
        check(missing == [], f"{page.name}: every image loads ({b.js('document.images.length')})")
        names = b.js("[...document.querySelectorAll('.entry')].map(e => e.querySelector('h2').textContent)")
        seen += names
        count = int(b.js("document.getElementById('count').textContent"))
        check(count == len(names), f"{page.name}: the count shown ({count}) is its entries")
        images = int(b.js("document.getElementById('images').textContent"))
        check(images == b.js("document.querySelectorAll('.entry img').length"),
              f"{page.name}: the image count shown ({images}) is its images")
        if k == 0:
            first = names[0]
            b.js(f"""(() => {{ const f = document.getElementById('filter');
                f.value = {json.dumps(first)}; f.dispatchEvent(new Event('input')); }})()""")
            shown = int(b.js("document.getElementById('shown').textContent"))
            visible = b.js(f"({VISIBLE})('.entry')")
            hits = sum(1 for n in names if first.lower() in n.lower())
            check(shown == visible == hits, f"the filter `{first}` shows {hits} entries")
            b.js("(() => { const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); })()")
            check(b.js(f"({VISIBLE})('.entry')") == len(names), "an empty filter shows them all again")
            b.screenshot(shots / "gallery.png")
        errors = b.errors()
        check(errors == [], f"{page.name}: no console errors {errors}")
    baked = [j["name"] for j in jobs]
    check(sorted(seen) == sorted(baked) and len(seen) == len(baked),
          f"the pages list every one of the bake's {len(baked)} jobs once")
    failed = [j["name"] for j in jobs if j["error"]]
    check(len(failed) == 1, "the broken model is one failed job")
    text = "".join(p.read_text() for p in pages)
    check(text.count('class="error"') == 1, "the gallery shows the failure once")


def check_report(b, page, files, shots):
    b.goto(page)
    missing = b.js(LOAD_ALL)
    check(missing == [], f"report: every image loads ({b.js('document.images.length')})")
    total = int(b.js("document.getElementById('total').textContent"))
    check(total == len(files), f"report: the total shown ({total}) is verify's {len(files)} files")
    check(b.js("document.querySelectorAll('article.file').length") == len(files), "report: one entry per file")
    mism = [f for f in files if f["status"] == "mismatch"]
    shown = int(b.js("document.getElementById('n-mismatch').textContent"))
    check(shown == len(mism) == 1, "report: one mismatch, shown as one")
    b.js("(() => { const s = document.getElementById('status'); s.value = 'failures'; s.dispatchEvent(new Event('change')); })()")
    check(b.js(f"({VISIBLE})('article.file')") == 1 and b.js("document.getElementById('shown').textContent") == "1",
          "report: `failures` shows the one mismatch")
    name = mism[0]["output"]
    check(b.js(f"[...document.querySelectorAll('article.file')].filter(e => e.offsetParent !== null)[0].getAttribute('data-name')")
          .endswith("windmill_0.gif"), f"report: it is {name}")
    b.js("(() => { const s = document.getElementById('status'); s.value = ''; s.dispatchEvent(new Event('change')); })()")
    check(b.js(f"({VISIBLE})('article.file')") == len(files), "report: `all` shows every file again")
    frames = b.js("document.querySelectorAll('table.frames tr.differs').length")
    check(frames > 0, f"report: {frames} differing frames in the frame table")
    clip = b.js("""(() => { const s = document.querySelector('.slider'); s.value = 20;
        s.dispatchEvent(new Event('input')); return document.querySelector('.stack .act').style.clipPath; })()""")
    check(clip == "inset(0px 0px 0px 20%)", f"report: the slider moves the split ({clip})")
    which = b.js("""new Promise(r => { document.querySelector('.blink').click();
        const w = document.querySelector('.which'); const seen = new Set();
        const t = setInterval(() => seen.add(w.textContent), 100);
        setTimeout(() => { clearInterval(t); document.querySelector('.blink').click(); r([...seen].sort()); }, 1300); })""")
    check(which == ["actual", "reference"], f"report: blink alternates {which}")
    b.js("document.getElementById('f' + [...document.querySelectorAll('article.file')].findIndex(e => e.dataset.status === 'mismatch')).scrollIntoView()")
    b.screenshot(shots / "report.png")
    errors = b.errors()
    check(errors == [], f"report: no console errors {errors}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln", default=str(REPO / "target/debug/kiln"))
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    ap.add_argument("--shots", default=str(REPO / "target/browser"))
    a = ap.parse_args()
    if not a.chromium or not Path(a.kiln).is_file():
        print(f"browser check: needs chromium ({a.chromium}) and kiln ({a.kiln})", file=sys.stderr)
        return 2
    shots = Path(a.shots)
    shots.mkdir(parents=True, exist_ok=True)
    exe = Path(a.kiln).resolve()
    with tempfile.TemporaryDirectory(prefix="kiln-browser-") as tmp:
        work = Path(tmp)
        (work / "recipes").mkdir()
        b = None
        try:
            folder, jobs = make_gallery(exe, work)
            page, files = make_report(exe, work)
            b = Browser(a.chromium, work / "profile")
            b.open_tab()
            check_gallery(b, folder, jobs, shots)
            check_report(b, page, files, shots)
        except Failed as e:
            print(f"browser check FAILED: {e}", file=sys.stderr)
            return 1
        finally:
            if b:
                b.close()
    print("browser check: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
