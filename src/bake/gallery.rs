//! A recipe's gallery: one static HTML page (paged when large) of every
//! job it baked — sheet, animated previews, frame count, size, pivot,
//! warnings and the files read — for people to look at. No server, no
//! network: links are relative, so the folder can move, and the script is
//! inline.
//!
//! The page says only what the jobs' files say, never how long they took
//! or whether this bake skipped them, so a re-bake that changes nothing
//! gives the same bytes, and an unchanged page is not written again.

use crate::bake::recipe::{GallerySpec, Job, Recipe};
use crate::bake::report::{BakeReport, JobKind, JobOutcome};
use crate::confined::{Contents, Root};
use crate::error::Result;
use crate::html::{esc, relative, url};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Images an entry shows at most; the rest are counted.
const MAX_IMAGES: usize = 24;
/// Files read an entry lists at most.
const MAX_READS: usize = 50;
/// Largest metadata file read for its frame count and pivot.
const MAX_META: u64 = 64 << 20;

/// Writes the gallery of every recipe that asks for one, from what
/// `report` says its jobs did; returns the pages written (unchanged ones
/// are not).
pub(crate) fn write_galleries(recipes: &[&Recipe], report: &BakeReport) -> Result<Vec<PathBuf>> {
    let outcomes: BTreeMap<&str, &JobOutcome> = report
        .jobs
        .iter()
        .filter(|o| o.kind == JobKind::Job)
        .map(|o| (o.name.as_str(), o))
        .collect();
    let mut written = Vec::new();
    for r in recipes {
        let Some(spec) = r.gallery() else {
            continue;
        };
        let entries: Vec<(usize, &JobOutcome)> = (0..r.job_count())
            .filter_map(|k| outcomes.get(&*r.job_name(k)).map(|o| (k, *o)))
            .collect();
        written.extend(write_pages(spec, r, &entries)?);
    }
    Ok(written)
}

/// Page `k` (0-based) of the gallery at `first`.
fn page_name(first: &str, k: usize) -> String {
    if k == 0 {
        return first.to_string();
    }
    let stem = &first[..first.len() - ".html".len()];
    format!("{stem}-{}.html", k + 1)
}

/// The pages of `entries` (jobs of `recipe` by place, with their
/// outcomes), one page at a time.
fn write_pages(
    spec: &GallerySpec,
    recipe: &Recipe,
    entries: &[(usize, &JobOutcome)],
) -> Result<Vec<PathBuf>> {
    let dir = spec.path.parent().unwrap_or(Path::new("")).to_path_buf();
    let first = spec
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "gallery.html".into());
    let root = Root::new(if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir.clone()
    });
    let pages = entries.len().div_ceil(spec.page_size).max(1);
    let mut written = Vec::new();
    for k in 0..pages {
        let part = &entries[(k * spec.page_size).min(entries.len())
            ..((k + 1) * spec.page_size).min(entries.len())];
        let html = page(&dir, recipe, &first, k, pages, entries.len(), part);
        let name = page_name(&first, k);
        let same = matches!(root.read(&name, html.len() as u64)?, Contents::Bytes(b) if b == html.as_bytes());
        if !same {
            root.write(&name, html.as_bytes())?;
            written.push(root.path_of(&name));
        }
    }
    Ok(written)
}

fn page(
    dir: &Path,
    recipe: &Recipe,
    first: &str,
    k: usize,
    pages: usize,
    total: usize,
    part: &[(usize, &JobOutcome)],
) -> String {
    // Each entry made as its job is resolved (a catalogue instance), the
    // job dropped before the next.
    let mut body = String::new();
    let mut images = 0;
    for &(at, outcome) in part {
        match recipe.job(at) {
            Ok(job) => {
                images += shown_images(&job, outcome).len().min(MAX_IMAGES);
                entry(&mut body, dir, &job, outcome);
            }
            Err(e) => failed_entry(&mut body, &recipe.job_name(at), &e.to_string()),
        }
    }
    let recipe = recipe.path();
    let mut h = String::new();
    let title = format!(
        "kiln gallery: {}",
        recipe
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let _ = writeln!(
        h,
        "<p>Page {} of {pages}: <span id=\"count\">{}</span> of {total} jobs, <span id=\"images\">{images}</span> images. <label>Filter <input id=\"filter\" type=\"search\" placeholder=\"job name\"></label> <span id=\"shown\">{}</span> shown.</p>",
        k + 1,
        part.len(),
        part.len()
    );
    if pages > 1 {
        h.push_str("<nav>");
        for p in 0..pages {
            if p == k {
                let _ = write!(h, "<b>{}</b> ", p + 1);
            } else {
                let _ = write!(
                    h,
                    "<a href=\"{}\">{}</a> ",
                    url(&page_name(first, p)),
                    p + 1
                );
            }
        }
        h.push_str("</nav>\n");
    }
    h.push_str("</header>\n<main>\n");
    h.push_str(&body);
    let _ = write!(h, "</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n");
    h
}

/// The images of a job worth showing: its sheets and animations, sorted.
fn shown_images(job: &Job, outcome: &JobOutcome) -> Vec<PathBuf> {
    let Ok(r) = &outcome.result else {
        return Vec::new();
    };
    let frames = job
        .output
        .frames
        .as_ref()
        .map(|t| t.matcher(&job.file_name));
    let mut out: Vec<PathBuf> = r
        .files
        .iter()
        .filter(|f| {
            let ext = f.extension().map(|e| e.to_ascii_lowercase());
            let image = ext.as_ref().is_some_and(|e| e == "png" || e == "gif");
            // Per-frame PNGs would be thousands: the sheet shows them.
            let frame = frames.as_ref().is_some_and(|m| {
                f.file_name()
                    .is_some_and(|n| m.matches(&n.to_string_lossy()))
            });
            image && !frame
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// An entry's opening: the element the filter matches by name, and its
/// heading.
fn entry_head(h: &mut String, name: &str) {
    let _ = write!(
        h,
        "<article class=\"entry\" data-name=\"{}\">\n<h2>{}</h2>\n",
        esc(&name.to_lowercase()),
        esc(name)
    );
}

fn entry_error(h: &mut String, error: &str) {
    let _ = writeln!(h, "<p class=\"error\">failed: {}</p>", esc(error));
}

fn entry(h: &mut String, dir: &Path, job: &Job, outcome: &JobOutcome) {
    entry_head(h, &job.name);
    let clips: Vec<&str> = job.clips.iter().map(|c| c.name.as_str()).collect();
    let _ = write!(
        h,
        "<p class=\"facts\">model <code>{}</code> · frame {}×{} · {} direction(s) · clip(s) {}",
        esc(&job.model.model.written),
        job.view.width,
        job.view.height,
        job.directions.len(),
        esc(&clips.join(", "))
    );
    if let Some((frames, pivot)) = job.output.meta.as_deref().and_then(meta_facts) {
        let _ = write!(h, " · {frames} frames");
        if let Some((x, y)) = pivot {
            let _ = write!(h, " · pivot ({x}, {y})");
        }
    }
    h.push_str("</p>\n");
    match &outcome.result {
        Err(e) => entry_error(h, &e.to_string()),
        Ok(r) => {
            let images = shown_images(job, outcome);
            h.push_str("<div class=\"images\">\n");
            for f in images.iter().take(MAX_IMAGES) {
                let name = f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let _ = writeln!(
                    h,
                    "<figure><a href=\"{u}\"><img loading=\"lazy\" src=\"{u}\" alt=\"{n}\"></a><figcaption>{n}</figcaption></figure>",
                    u = url(&relative(dir, f)),
                    n = esc(&name)
                );
            }
            h.push_str("</div>\n");
            if images.len() > MAX_IMAGES {
                let _ = writeln!(h, "<p>and {} more images</p>", images.len() - MAX_IMAGES);
            }
            let others: Vec<&PathBuf> = r.files.iter().filter(|f| !images.contains(f)).collect();
            if !others.is_empty() {
                h.push_str("<p class=\"files\">");
                for f in others.iter().take(MAX_IMAGES) {
                    let rel = relative(dir, f);
                    let _ = write!(h, "<a href=\"{}\">{}</a> ", url(&rel), esc(&rel));
                }
                h.push_str("</p>\n");
            }
            if !r.warnings.is_empty() {
                h.push_str("<ul class=\"warnings\">\n");
                for w in &r.warnings {
                    let _ = writeln!(h, "<li>{}</li>", esc(w));
                }
                h.push_str("</ul>\n");
            }
            if !r.inputs.is_empty() {
                let _ = writeln!(
                    h,
                    "<details><summary>{} file(s) read</summary><ul>",
                    r.inputs.len()
                );
                for i in r.inputs.iter().take(MAX_READS) {
                    let _ = writeln!(h, "<li><code>{}</code></li>", esc(&relative(dir, i)));
                }
                h.push_str("</ul></details>\n");
            }
        }
    }
    h.push_str("</article>\n");
}

/// The entry of a job that no longer resolves (its instance failed too).
fn failed_entry(h: &mut String, name: &str, error: &str) {
    entry_head(h, name);
    entry_error(h, error);
    h.push_str("</article>\n");
}

/// The frame count and pivot a job's metadata file records.
fn meta_facts(meta: &Path) -> Option<(usize, Option<(f64, f64)>)> {
    let root = Root::new(meta.parent()?);
    let Ok(Contents::Bytes(b)) = root.read(&meta.file_name()?.to_string_lossy(), MAX_META) else {
        return None;
    };
    let v: serde_json::Value = serde_json::from_slice(&b).ok()?;
    let frames = match &v["frames"] {
        serde_json::Value::Object(m) => m.len(),
        serde_json::Value::Array(a) => a.len(),
        _ => return None,
    };
    let p = &v["meta"]["pivot"];
    let pivot = p["x"].as_f64().zip(p["y"].as_f64());
    Some((frames, pivot))
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f4;color:#222}header{position:sticky;top:0;background:#fff;padding:8px 16px;border-bottom:1px solid #ccc;z-index:1}h1{font-size:18px;margin:0 0 4px}main{padding:8px 16px}.entry{background:#fff;border:1px solid #ddd;border-radius:4px;margin:8px 0;padding:8px 12px}.entry h2{font-size:15px;margin:0 0 4px}.facts{color:#555;margin:0 0 6px}.images{display:flex;flex-wrap:wrap;gap:8px}figure{margin:0;text-align:center}img{max-width:256px;max-height:256px;image-rendering:pixelated;background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/16px 16px}figcaption{font-size:12px;color:#666}.warnings{color:#8a5a00}.error{color:#b00020}.hidden{display:none}nav{margin-top:4px}";

const SCRIPT: &str = "(function(){var f=document.getElementById('filter'),s=document.getElementById('shown'),e=document.querySelectorAll('.entry');f.addEventListener('input',function(){var q=f.value.trim().toLowerCase(),n=0;e.forEach(function(x){var hit=x.getAttribute('data-name').indexOf(q)>=0;x.classList.toggle('hidden',!hit);if(hit)n++;});s.textContent=n;});})();";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_numbered_from_the_second() {
        assert_eq!(page_name("index.html", 0), "index.html");
        assert_eq!(page_name("index.html", 2), "index-3.html");
    }
}
