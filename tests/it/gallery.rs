//! The gallery: one entry per job with links that resolve, the same bytes
//! (and no rewrite) on a re-bake that changes nothing, pages at the
//! recipe's page size.

use crate::common::{example_copy, kiln, stderr};
use std::path::Path;

fn bake(dir: &Path, recipe: &str) {
    let o = kiln(&["bake", "-q", recipe], dir);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Every `src="…"` and `href="…"` of `page`, percent-decoded.
fn links(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["src=\"", "href=\""] {
        for part in page.split(key).skip(1) {
            let raw = &part[..part.find('"').unwrap()];
            let mut bytes = Vec::new();
            let b = raw.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'%' {
                    bytes.push(u8::from_str_radix(&raw[i + 1..i + 3], 16).unwrap());
                    i += 3;
                } else {
                    bytes.push(b[i]);
                    i += 1;
                }
            }
            out.push(String::from_utf8(bytes).unwrap());
        }
    }
    out
}

#[test]
fn the_catalogue_gallery_lists_every_instance_and_is_not_rewritten() {
    let dir = example_copy("gallery-catalogue");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        repo.join("recipes/catalogue.yaml"),
        dir.join("recipes/catalogue.yaml"),
    )
    .unwrap();
    bake(&dir, "recipes/catalogue.yaml");
    let page_path = dir.join("out/catalogue/index.html");
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert_eq!(page.matches("<article").count(), 2);
    assert!(page.contains("<span id=\"count\">2</span> of 2 jobs"));
    // Sheet + 4 GIFs per model.
    assert!(page.contains("<span id=\"images\">10</span> images"));
    assert!(page.contains("data-name=\"models/kiln/beacon.rsm\""));
    assert!(page.contains("32 frames"), "frame count from the metadata");
    assert!(
        !page.contains("http:") && !page.contains("https:"),
        "nothing from the network"
    );
    let found = links(&page);
    assert_eq!(
        found.iter().filter(|l| l.ends_with(".gif")).count(),
        2 * 2 * 4
    );
    for l in &found {
        assert!(
            page_path.parent().unwrap().join(l).is_file(),
            "{l} does not resolve"
        );
    }
    let before = std::fs::metadata(&page_path).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    bake(&dir, "recipes/catalogue.yaml");
    assert_eq!(std::fs::read_to_string(&page_path).unwrap(), page);
    assert_eq!(
        std::fs::metadata(&page_path).unwrap().modified().unwrap(),
        before
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gallery_is_paged_and_a_failed_job_says_why() {
    let dir = example_copy("gallery-pages");
    let text = std::fs::read_to_string(dir.join("recipes/example.yaml")).unwrap();
    let text = format!(
        "{text}\n  - name: broken\n    model: samples/data/texture/kiln/wood.bmp\n\ngallery: {{ file: ../out/pages/all.html, page_size: 2 }}\n"
    );
    std::fs::write(dir.join("recipes/paged.yaml"), text).unwrap();
    let o = kiln(&["bake", "-q", "recipes/paged.yaml"], &dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let first = std::fs::read_to_string(dir.join("out/pages/all.html")).unwrap();
    let second = std::fs::read_to_string(dir.join("out/pages/all-2.html")).unwrap();
    assert_eq!(first.matches("<article").count(), 2);
    assert_eq!(second.matches("<article").count(), 1);
    assert!(first.contains("<a href=\"all-2.html\">2</a>"));
    assert!(second.contains("<a href=\"all.html\">1</a>"));
    assert!(second.contains("failed:"), "{second}");
    assert!(!dir.join("out/pages/all-3.html").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
