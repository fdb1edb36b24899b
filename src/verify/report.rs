//! `kiln verify --report DIR`: a page a person reads when a golden check
//! fails, in the manner of Playwright's HTML report or reg-suit — every
//! checked file with its verdict, and for each one that did not match the
//! reference, the baked file and the difference side by side, a blink
//! toggle, a slider, the counts, and animations frame by frame with their
//! delays. One static `index.html` (no server, no network, relative
//! links), its pictures in `files/<output path>/`.
//!
//! The folder is written, never emptied: the page links only this run's
//! pictures, and a CI job uploads a fresh folder.

use super::compare::{difference_image, frame_pairs, FramePair, Tolerance};
use super::{CheckStatus, VerifyReport};
use crate::confined::Root;
use crate::error::Result;
use crate::html::{esc, relative, url};
use crate::output::encode_png;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Differing frames of one animation pictured at most; the others are
/// rows of the frame table without pictures.
const MAX_PICTURED_FRAMES: usize = 32;

/// The pictures kept for one file that did not match, by their names below
/// the report folder (`/`-separated).
#[derive(Debug, Clone, PartialEq)]
pub struct Attachments {
    /// The reference as it was compared (before `--update` rewrote it).
    pub reference: Option<String>,
    /// The baked file.
    pub actual: String,
    /// Reference, actual and difference of the image (of the first frame
    /// that differs, for an animation), each a PNG.
    pub still: Option<[String; 3]>,
    /// Every frame, for images and animations; empty for other files.
    pub frames: Vec<FrameCheck>,
}

/// One frame of a file against the same frame of its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameCheck {
    /// 0-based.
    pub index: usize,
    /// How long the reference shows it (ms); `None` past its last frame.
    pub reference_ms: Option<u32>,
    /// How long the baked file shows it.
    pub actual_ms: Option<u32>,
    /// Pixels that differ; `None` when the frame is missing on one side
    /// or the sizes differ.
    pub differing: Option<u64>,
    /// The largest channel difference.
    pub worst: u8,
    /// Within the tolerance, delay included.
    pub matches: bool,
    /// Reference, actual and difference PNGs, for the first
    /// 32 frames that differ.
    pub pictures: Option<[String; 3]>,
}

/// Keeps the reference, the baked file and the pictures of their
/// difference below `root`, in `files/<mirrored>/`.
pub(super) fn attach(
    root: &Root,
    mirrored: &str,
    reference: Option<&[u8]>,
    actual: &[u8],
    tolerance: &Tolerance,
) -> Result<Attachments> {
    let folder = format!("files/{mirrored}");
    let ext = extension(mirrored);
    let actual_name = format!("{folder}/actual-file.{ext}");
    root.write(&actual_name, actual)?;
    let reference_name = match reference {
        Some(bytes) => {
            let name = format!("{folder}/reference-file.{ext}");
            root.write(&name, bytes)?;
            Some(name)
        }
        None => None,
    };
    let pairs = reference
        .and_then(|r| frame_pairs(r, actual, tolerance))
        .unwrap_or_default();
    let mut frames = Vec::with_capacity(pairs.len());
    let mut pictured = 0;
    let mut still = None;
    for (i, pair) in pairs.iter().enumerate() {
        let matches = pair.matches();
        let pictures = if !matches && pictured < MAX_PICTURED_FRAMES {
            pictured += 1;
            let stem = if pairs.len() > 1 {
                format!("{folder}/frame-{i:04}")
            } else {
                folder.clone()
            };
            picture(root, &stem, pair)?
        } else {
            None
        };
        if still.is_none() {
            still.clone_from(&pictures);
        }
        frames.push(FrameCheck {
            index: i,
            reference_ms: pair.reference.as_ref().map(|f| f.1),
            actual_ms: pair.actual.as_ref().map(|f| f.1),
            differing: pair.diff.as_ref().map(|d| d.differing),
            worst: pair.diff.as_ref().map_or(0, |d| d.worst),
            matches,
            pictures,
        });
    }
    Ok(Attachments {
        reference: reference_name,
        actual: actual_name,
        still,
        frames,
    })
}

/// Writes `<stem>-reference.png`, `-actual.png` and `-difference.png` for
/// a frame both sides have.
fn picture(root: &Root, stem: &str, pair: &FramePair) -> Result<Option<[String; 3]>> {
    let (Some((e, _)), Some((a, _))) = (&pair.reference, &pair.actual) else {
        return Ok(None);
    };
    let names = [
        format!("{stem}/reference.png"),
        format!("{stem}/actual.png"),
        format!("{stem}/difference.png"),
    ];
    root.write(&names[0], &encode_png(e)?)?;
    root.write(&names[1], &encode_png(a)?)?;
    root.write(
        &names[2],
        &encode_png(&difference_image(e, a, pair.diff.as_ref()))?,
    )?;
    Ok(Some(names))
}

/// The output's extension, if it is a plain one, so the browser knows the
/// copy (`.png`, `.gif`, `.json`); `bin` otherwise.
fn extension(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    match file.rsplit_once('.') {
        Some((stem, e))
            if !stem.is_empty()
                && (1..=8).contains(&e.len())
                && e.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            e.to_ascii_lowercase()
        }
        _ => "bin".into(),
    }
}

/// Writes `<dir>/index.html` for `report`; returns its path.
pub(super) fn write_index(dir: &Path, report: &VerifyReport, tol: &Tolerance) -> Result<PathBuf> {
    let root = Root::new(dir);
    let html = page(dir, report, tol);
    root.write("index.html", html.as_bytes())?;
    Ok(root.path_of("index.html"))
}

/// The anchor of file `n` on the page, which JUnit entries link to.
pub(super) fn anchor(n: usize) -> String {
    format!("f{n}")
}

fn page(dir: &Path, r: &VerifyReport, tol: &Tolerance) -> String {
    let mut h = String::new();
    let verdict = if r.passed() { "passed" } else { "FAILED" };
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>kiln verify: {verdict}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1>kiln verify: <span id=\"verdict\">{verdict}</span></h1>\n"
    );
    let failed_jobs: Vec<_> = r.bake.jobs.iter().filter(|j| j.result.is_err()).collect();
    let _ = writeln!(
        h,
        "<p><span id=\"total\">{}</span> files: <span id=\"n-match\">{}</span> match, <span id=\"n-mismatch\">{}</span> differ, <span id=\"n-missing\">{}</span> missing, <span id=\"n-updated\">{}</span> updated; <span id=\"n-failed\">{}</span> job(s) failed. Tolerance: channel {}, pixels {}{}.</p>",
        r.files.len(),
        r.count(CheckStatus::Match),
        r.count(CheckStatus::Mismatch),
        r.count(CheckStatus::Missing),
        r.count(CheckStatus::Updated),
        failed_jobs.len(),
        tol.channel,
        match tol.pixels {
            super::compare::PixelBudget::Count(n) => n.to_string(),
            super::compare::PixelBudget::Percent(p) => format!("{p}%"),
        },
        if tol.antialiasing { ", anti-aliasing ignored" } else { "" }
    );
    h.push_str("<p><label>Filter <input id=\"filter\" type=\"search\" placeholder=\"file name\"></label> <label>Show <select id=\"status\"><option value=\"\">all</option><option value=\"failures\">failures</option><option value=\"mismatch\">differ</option><option value=\"missing\">missing</option><option value=\"updated\">updated</option><option value=\"match\">match</option></select></label> ");
    let _ = writeln!(
        h,
        "<span id=\"shown\">{}</span> shown.</p>\n</header>\n<main>",
        r.files.len()
    );
    for job in &failed_jobs {
        if let Err(e) = &job.result {
            let _ = writeln!(
                h,
                "<article class=\"job\"><h2><span class=\"badge s-failed\">failed</span> job {}</h2><p class=\"detail\">{}</p></article>",
                esc(&job.label()),
                esc(&e.to_string())
            );
        }
    }
    let cwd = std::env::current_dir()
        .map(|d| crate::paths::normalize(&d))
        .ok();
    let shown = |p: &Path| -> String {
        let rel = cwd.as_deref().and_then(|c| p.strip_prefix(c).ok());
        rel.unwrap_or(p).to_string_lossy().replace('\\', "/")
    };
    for (n, f) in r.files.iter().enumerate() {
        let status = f.status.as_str();
        let _ = write!(
            h,
            "<article class=\"file\" id=\"{}\" data-name=\"{}\" data-status=\"{status}\">\n<h2><span class=\"badge s-{status}\">{status}</span> <code>{}</code></h2>\n",
            anchor(n),
            esc(&shown(&f.output).to_lowercase()),
            esc(&shown(&f.output))
        );
        if f.status == CheckStatus::Match {
            h.push_str("</article>\n");
            continue;
        }
        let _ = writeln!(
            h,
            "<p class=\"detail\">{}</p>\n<p class=\"paths\">reference <code>{}</code></p>",
            esc(&f.detail),
            esc(&relative(dir, &f.reference))
        );
        if let Some(a) = &f.attachments {
            attachments(&mut h, a, f.differing_pixels, f.worst_delta);
        }
        h.push_str("</article>\n");
    }
    let _ = write!(h, "</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n");
    h
}

fn attachments(h: &mut String, a: &Attachments, differing: u64, worst: u8) {
    if let Some([e, ac, d]) = &a.still {
        let _ = writeln!(
            h,
            "<p class=\"counts\"><b>{differing}</b> differing pixels, worst channel delta <b>{worst}</b></p>\n<div class=\"panels\">{}{}{}</div>",
            figure(e, "reference"),
            figure(ac, "actual"),
            figure(d, "difference")
        );
        let _ = writeln!(
            h,
            "<div class=\"compare\"><div class=\"stack\"><img class=\"ref\" loading=\"lazy\" src=\"{}\" alt=\"reference\"><img class=\"act\" loading=\"lazy\" src=\"{}\" alt=\"actual\"></div><div><input class=\"slider\" type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"reference left, actual right\"> <button class=\"blink\" type=\"button\">blink</button> <span class=\"which\">reference | actual</span></div></div>",
            url(e),
            url(ac)
        );
    }
    if a.still.is_none() && [".png", ".gif"].iter().any(|e| a.actual.ends_with(e)) {
        // No reference to compare with (or one kiln cannot read): what
        // the bake made is still worth seeing.
        let _ = writeln!(
            h,
            "<div class=\"panels\">{}</div>",
            figure(&a.actual, "actual")
        );
    }
    h.push_str("<p class=\"copies\">");
    if let Some(r) = &a.reference {
        let _ = write!(h, "<a href=\"{}\">reference file</a> · ", url(r));
    }
    let _ = writeln!(h, "<a href=\"{}\">baked file</a></p>", url(&a.actual));
    if a.frames.len() > 1 {
        // The files themselves play, side by side, before the frame table.
        if let Some(r) = &a.reference {
            let _ = writeln!(
                h,
                "<div class=\"panels\">{}{}</div>",
                figure(r, "reference, playing"),
                figure(&a.actual, "actual, playing")
            );
        }
        frame_table(h, &a.frames);
    }
}

fn figure(name: &str, caption: &str) -> String {
    format!(
        "<figure><a href=\"{u}\"><img loading=\"lazy\" src=\"{u}\" alt=\"{c}\"></a><figcaption>{c}</figcaption></figure>",
        u = url(name),
        c = esc(caption)
    )
}

fn frame_table(h: &mut String, frames: &[FrameCheck]) {
    let differ = frames.iter().filter(|f| !f.matches).count();
    let _ = writeln!(
        h,
        "<details open><summary>{} frames, {differ} differ</summary>\n<table class=\"frames\"><tr><th>frame</th><th>reference ms</th><th>actual ms</th><th>differing pixels</th><th>worst delta</th><th>reference · actual · difference</th></tr>",
        frames.len()
    );
    let ms = |m: Option<u32>| m.map_or("—".to_string(), |m| m.to_string());
    for f in frames {
        let _ = write!(
            h,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>",
            if f.matches { "same" } else { "differs" },
            f.index,
            ms(f.reference_ms),
            ms(f.actual_ms),
            f.differing
                .map_or("sizes differ".to_string(), |d| d.to_string()),
            f.worst
        );
        if let Some(p) = &f.pictures {
            for (name, alt) in p.iter().zip(["reference", "actual", "difference"]) {
                let _ = write!(
                    h,
                    "<img class=\"thumb\" loading=\"lazy\" src=\"{}\" alt=\"{alt} frame {}\">",
                    url(name),
                    f.index
                );
            }
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</table></details>\n");
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f4;color:#222}header{position:sticky;top:0;background:#fff;padding:8px 16px;border-bottom:1px solid #ccc;z-index:2}h1{font-size:18px;margin:0 0 4px}main{padding:8px 16px}article{background:#fff;border:1px solid #ddd;border-radius:4px;margin:6px 0;padding:6px 12px}article h2{font-size:14px;margin:2px 0;font-weight:normal}.badge{display:inline-block;min-width:64px;text-align:center;border-radius:3px;padding:0 6px;color:#fff;font-weight:bold}.s-match{background:#2e7d32}.s-mismatch,.s-failed{background:#c62828}.s-missing{background:#ef6c00}.s-updated{background:#1565c0}.detail{margin:4px 0}.paths,.copies{color:#555;margin:4px 0}.panels{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;text-align:center}img{image-rendering:pixelated;background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/16px 16px}.panels img{max-width:320px;max-height:320px;min-width:64px}figcaption{font-size:12px;color:#666}.compare{margin:8px 0}.stack{position:relative;display:inline-block}.stack img{display:block;max-width:480px;min-width:128px}.stack .act{position:absolute;left:0;top:0;width:100%;height:100%;clip-path:inset(0 0 0 50%)}.slider{width:240px;vertical-align:middle}.frames{border-collapse:collapse;font-size:12px}.frames td,.frames th{border:1px solid #ddd;padding:2px 6px;text-align:right}.frames tr.differs{background:#fdecea}.thumb{max-width:96px;max-height:96px;margin-right:4px;vertical-align:middle}.hidden{display:none}";

const SCRIPT: &str = "(function(){var f=document.getElementById('filter'),st=document.getElementById('status'),s=document.getElementById('shown'),e=document.querySelectorAll('article.file');function apply(){var q=f.value.trim().toLowerCase(),w=st.value,n=0;e.forEach(function(x){var k=x.getAttribute('data-status'),hit=x.getAttribute('data-name').indexOf(q)>=0&&(w===''||k===w||(w==='failures'&&(k==='mismatch'||k==='missing')));x.classList.toggle('hidden',!hit);if(hit)n++;});s.textContent=n;}f.addEventListener('input',apply);st.addEventListener('change',apply);document.querySelectorAll('.compare').forEach(function(c){var act=c.querySelector('.act'),sl=c.querySelector('.slider'),b=c.querySelector('.blink'),w=c.querySelector('.which'),t=null,on=false;function clip(v){act.style.clipPath='inset(0 0 0 '+v+'%)';}sl.addEventListener('input',function(){if(t){clearInterval(t);t=null;b.textContent='blink';}clip(sl.value);w.textContent='reference | actual';});b.addEventListener('click',function(){if(t){clearInterval(t);t=null;b.textContent='blink';clip(sl.value);w.textContent='reference | actual';return;}b.textContent='stop';on=false;clip(100);w.textContent='reference';t=setInterval(function(){on=!on;clip(on?0:100);w.textContent=on?'actual':'reference';},500);});});})();";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_keep_plain_extensions_only() {
        assert_eq!(extension("out/hero.PNG"), "png");
        assert_eq!(extension("out/hero.meta.json"), "json");
        assert_eq!(extension("out/.hidden"), "bin");
        assert_eq!(extension("out/x.p<ng"), "bin");
        assert_eq!(extension("out.d/noext"), "bin");
    }
}
