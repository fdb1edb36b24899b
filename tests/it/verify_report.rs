//! `kiln verify --report DIR`: the page lists every checked file with its
//! verdict; a changed sheet gets reference, actual and a difference
//! picture red exactly where it was changed; a changed GIF gets a frame
//! table whose delays and counts are those an independent decode finds;
//! the JUnit entries link to the page; the page is the same on a re-run.

use crate::common::{example_copy, kiln, stderr};
use image::AnimationDecoder;
use std::path::Path;

/// Every frame of a GIF and its delay in ms, decoded by the image crate.
fn gif_frames(path: &Path) -> Vec<(image::RgbaImage, u32)> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    image::codecs::gif::GifDecoder::new(file)
        .unwrap()
        .into_frames()
        .map(|f| {
            let f = f.unwrap();
            let (n, d) = f.delay().numer_denom_ms();
            (f.into_buffer(), n / d)
        })
        .collect()
}

/// Pixels where any channel differs.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> u64 {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count() as u64
}

/// The largest channel difference.
fn worst(a: &image::RgbaImage, b: &image::RgbaImage) -> u8 {
    a.pixels()
        .zip(b.pixels())
        .flat_map(|(p, q)| p.0.iter().zip(q.0).map(|(x, y)| x.abs_diff(y)))
        .max()
        .unwrap_or(0)
}

/// Rewrites a GIF with one palette index changed in frame `k`, every other
/// byte of every frame kept.
fn change_gif_frame(path: &Path, k: usize) {
    let bytes = std::fs::read(path).unwrap();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(&bytes[..]).unwrap();
    let (w, h) = (dec.width(), dec.height());
    let global = dec.global_palette().map(<[u8]>::to_vec);
    let mut frames = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        frames.push(f.clone());
    }
    let f = &mut frames[k];
    let colours = f.palette.as_ref().or(global.as_ref()).unwrap().len() / 3;
    let at = f
        .buffer
        .iter()
        .position(|&i| Some(i) != f.transparent)
        .unwrap();
    let mut next = (f.buffer[at] as usize + 1) % colours;
    if Some(next as u8) == f.transparent {
        next = (next + 1) % colours;
    }
    f.buffer.to_mut()[at] = next as u8;
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, global.as_deref().unwrap_or(&[])).unwrap();
        enc.set_repeat(gif::Repeat::Infinite).unwrap();
        for f in &frames {
            enc.write_frame(f).unwrap();
        }
    }
    std::fs::write(path, out).unwrap();
}

/// The `<article …>` of the page whose `data-name` is `name`.
fn article<'a>(page: &'a str, name: &str) -> &'a str {
    let key = format!("data-name=\"{name}\"");
    let at = page.find(&key).unwrap_or_else(|| panic!("no entry {name}"));
    let start = page[..at].rfind("<article").unwrap();
    let end = at + page[at..].find("</article>").unwrap();
    &page[start..end]
}

fn attr<'a>(html: &'a str, name: &str) -> &'a str {
    let key = format!("{name}=\"");
    let s = html.find(&key).unwrap() + key.len();
    &html[s..s + html[s..].find('"').unwrap()]
}

#[test]
fn the_report_shows_every_file_and_each_mismatch_frame_by_frame() {
    let dir = example_copy("verify-report");
    let example = dir.join("recipes/example.yaml").display().to_string();
    let baked = kiln(&["bake", "-q", &example], &dir);
    assert!(baked.status.success(), "{}", stderr(&baked));

    let sheet = dir.join("out/beacon/beacon.png");
    let mut img = image::open(&sheet).unwrap().to_rgba8();
    for y in 40..44 {
        for x in 130..136 {
            img.put_pixel(x, y, image::Rgba([0, 255, 0, 255]));
        }
    }
    img.save(&sheet).unwrap();
    let gif = dir.join("out/windmill/windmill_3.gif");
    let fresh = gif_frames(&gif);
    change_gif_frame(&gif, 5);
    let changed = gif_frames(&gif);
    assert_eq!(fresh.len(), changed.len());

    let report = dir.join("report");
    let junit = dir.join("junit.xml");
    let run = || {
        kiln(
            &[
                "verify",
                &example,
                "--report",
                report.to_str().unwrap(),
                "--junit",
                junit.to_str().unwrap(),
            ],
            &dir,
        )
    };
    let out = run();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("kiln: report "), "{}", stderr(&out));
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();

    // Every file is listed once, with the counts the command printed.
    assert_eq!(page.matches("<article class=\"file\"").count(), 20);
    assert!(page.contains("<span id=\"total\">20</span>"));
    assert!(page.contains("<span id=\"n-match\">18</span>"));
    assert!(page.contains("<span id=\"n-mismatch\">2</span>"));
    assert!(stderr(&out).contains("verified 20 files: 18 match, 2 differ"));

    // The sheet: its pictures, the difference red exactly on the block.
    let entry = article(&page, "out/beacon/beacon.png");
    assert_eq!(attr(entry, "data-status"), "mismatch");
    assert!(entry.contains("<b>24</b> differing pixels, worst channel delta <b>255</b>"));
    assert!(entry.contains("class=\"slider\"") && entry.contains("class=\"blink\""));
    let folder = report.join("files/out/beacon/beacon.png");
    let diff = image::open(folder.join("difference.png"))
        .unwrap()
        .to_rgba8();
    let red: Vec<(u32, u32)> = diff
        .enumerate_pixels()
        .filter(|(_, _, p)| p.0 == [255, 0, 0, 255])
        .map(|(x, y, _)| (x, y))
        .collect();
    let block: Vec<(u32, u32)> = (40..44)
        .flat_map(|y| (130..136).map(move |x| (x, y)))
        .collect();
    assert_eq!(red, block);
    assert_eq!(
        image::open(folder.join("reference.png"))
            .unwrap()
            .to_rgba8(),
        img,
        "the reference picture is the changed golden"
    );
    assert_eq!(
        std::fs::read(folder.join("reference-file.png")).unwrap(),
        std::fs::read(&sheet).unwrap()
    );
    // The baked file is what the bake made before the golden was changed.
    let actual = image::open(folder.join("actual-file.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(differing(&actual, &img), 24);

    // The GIF: one row per frame with the delays and counts of a decode
    // that shares nothing with kiln's.
    let entry = article(&page, "out/windmill/windmill_3.gif");
    let rows: Vec<&str> = entry.split("<tr class=\"").skip(1).collect();
    assert_eq!(rows.len(), fresh.len());
    let mut differ = 0;
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row
            .split("<td>")
            .skip(1)
            .map(|c| &c[..c.find("</td>").unwrap()])
            .collect();
        let n = differing(&changed[i].0, &fresh[i].0);
        let delay = fresh[i].1.to_string();
        assert_eq!(
            &cells[..5],
            &[
                &i.to_string(),
                &delay,
                &delay,
                &n.to_string(),
                &worst(&changed[i].0, &fresh[i].0).to_string()
            ][..],
            "frame {i}"
        );
        assert_eq!(row.starts_with("differs"), n > 0, "frame {i}");
        if n > 0 {
            differ += 1;
            let pictured = format!("frame-{i:04}");
            assert!(row.contains(&pictured), "frame {i} is pictured");
            let d = image::open(report.join(format!(
                "files/out/windmill/windmill_3.gif/{pictured}/difference.png"
            )))
            .unwrap()
            .to_rgba8();
            let reds = d.pixels().filter(|p| p.0 == [255, 0, 0, 255]).count() as u64;
            assert_eq!(reds, n, "frame {i}");
        }
    }
    assert!(differ >= 1 && differ < rows.len(), "{differ} frames differ");
    assert!(rows[5].starts_with("differs"));

    // JUnit failures link to their entries and attach the diffs.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let id = attr(article(&page, "out/beacon/beacon.png"), "id").to_string();
    assert!(xml.contains(&format!("index.html#{id}")), "{xml}");
    assert_eq!(xml.matches("[[ATTACHMENT|").count(), 2, "{xml}");

    // Same inputs, same page.
    assert_eq!(run().status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(report.join("index.html")).unwrap(),
        page
    );
    let _ = std::fs::remove_dir_all(&dir);
}
