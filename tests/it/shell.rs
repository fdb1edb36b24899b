//! What a package ships beside the binary and the CLI's `--material`:
//! completion scripts for each shell, the manual pages, and a material's
//! texture given on the command line as a recipe's `materials:` gives it.

use crate::common::{kiln, stderr, tempdir};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const COMMANDS: [&str; 11] = [
    "bake",
    "render",
    "inspect",
    "export",
    "verify",
    "plan",
    "extract",
    "convert",
    "completions",
    "man",
    "schema",
];

#[test]
fn completions_for_bash_zsh_and_fish_name_every_command_and_flag() {
    let dir = tempdir("completions");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = kiln(&["completions", shell], &dir);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = String::from_utf8(o.stdout).unwrap();
        for c in COMMANDS {
            assert!(script.contains(c), "{shell} completion lacks `{c}`");
        }
        for flag in ["out-dir", "dry-run", "material", "memory-limit"] {
            assert!(script.contains(flag), "{shell} completion lacks `{flag}`");
        }
        if shell == "bash" {
            let path = dir.join("kiln.bash");
            std::fs::write(&path, &script).unwrap();
            let syntax = std::process::Command::new("bash")
                .arg("-n")
                .arg(&path)
                .status()
                .unwrap();
            assert!(syntax.success(), "bash -n rejects the script");
        }
    }
    let o = kiln(&["completions", "tcsh"], &dir);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_manual_pages_are_roff_for_kiln_and_each_command() {
    let dir = tempdir("man");
    let page = String::from_utf8(kiln(&["man"], &dir).stdout).unwrap();
    assert!(page.contains(".TH kiln 1"), "{page}");
    for c in COMMANDS {
        assert!(
            page.contains(&format!("kiln\\-{c}(1)")),
            "kiln(1) lacks {c}"
        );
        let o = kiln(&["man", c], &dir);
        assert_eq!(o.status.code(), Some(0), "{c}: {}", stderr(&o));
        let sub = String::from_utf8(o.stdout).unwrap();
        assert!(sub.contains(&format!(".TH kiln-{c} 1")), "{sub}");
    }
    let bake = String::from_utf8(kiln(&["man", "bake"], &dir).stdout).unwrap();
    assert!(bake.contains("\\-\\-out\\-dir"), "{bake}");
    let o = kiln(&["man", "bak"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("kiln has no command `bak`; the commands are bake, render,"));
}

/// Opaque pixels whose channels differ: the lever's texture is coloured,
/// the grey it is drawn in without one is not.
fn coloured_pixels(png: &std::path::Path) -> (usize, usize) {
    let img = image::open(png).unwrap().to_rgba8();
    let opaque: Vec<_> = img.pixels().filter(|p| p[3] == 255).collect();
    let coloured = opaque
        .iter()
        .filter(|p| p[0].abs_diff(p[1]) > 8 || p[1].abs_diff(p[2]) > 8)
        .count();
    (opaque.len(), coloured)
}

#[test]
fn render_takes_a_material_texture_as_a_recipe_does() {
    let dir = tempdir("render-material");
    let recipes = repo().join("recipes");
    let model = "samples/arma/kiln_lever/kiln_lever.p3d";
    let grey = dir.join("grey.png");
    let o = kiln(
        &[
            "render",
            model,
            "--size",
            "96x96",
            "-o",
            grey.to_str().unwrap(),
        ],
        &recipes,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("texture 'kiln\\lever_co.paa' not found"));
    let (opaque, coloured) = coloured_pixels(&grey);
    assert!(opaque > 500 && coloured == 0, "{opaque} {coloured}");

    let textured = dir.join("textured.png");
    let o = kiln(
        &[
            "render",
            model,
            "--size",
            "96x96",
            "--material",
            "kiln\\lever_co.paa=samples/arma/kiln_lever/data/lever_co.tga",
            "-o",
            textured.to_str().unwrap(),
        ],
        &recipes,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("not found"), "{}", stderr(&o));
    let (opaque, coloured) = coloured_pixels(&textured);
    assert!(coloured * 2 > opaque, "{opaque} {coloured}");

    let o = kiln(
        &["render", model, "--material", "=x.tga", "-o", "x.png"],
        &recipes,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not NAME=FILE"), "{}", stderr(&o));
}
