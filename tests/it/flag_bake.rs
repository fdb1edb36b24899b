//! `kiln bake --model FILE [job flags]`: one job from flags named after the
//! recipe keys bakes the same bytes as that job in a recipe, `--print-recipe`
//! shows a recipe that bakes them too, and a bad value gets the recipe's
//! own message.

use crate::common::{kiln, stderr, tempdir};
use std::path::{Path, PathBuf};

fn tentacle() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("recipes/samples/gltf/kiln_tentacle.glb")
        .display()
        .to_string()
}

/// Every file below `dir` but the state, by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != kiln::STATE_FILE))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn flags<'a>(model: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "bake",
        "--model",
        model,
        "--name",
        "tentacle_wave",
        "--clip",
        "wave",
        "--fps",
        "15",
        "--directions",
        "0,90",
        "--size",
        "96x128",
        "--gif",
        "{name}_{dir}.gif",
        "-o",
        out,
    ]
}

#[test]
fn a_bake_from_flags_equals_the_same_job_from_a_recipe() {
    let dir = tempdir("flag-bake");
    let model = tentacle();
    // The second job of recipes/gltf.yaml, its folder aside.
    let recipe = format!(
        "jobs:\n  - name: tentacle_wave\n    model: {model}\n    clips:\n      - {{ name: wave, embedded: wave, fps: 15 }}\n    directions: [0, 90]\n    size: 96x128\n    output:\n      dir: from_recipe\n      gif: \"{{name}}_{{dir}}.gif\"\n"
    );
    std::fs::write(dir.join("r.yaml"), recipe).unwrap();
    let o = kiln(&["bake", "r.yaml"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = kiln(&flags(&model, "from_flags"), &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let want = files(&dir.join("from_recipe"));
    let names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "tentacle_wave.json",
            "tentacle_wave.png",
            "tentacle_wave_0.gif",
            "tentacle_wave_1.gif"
        ]
    );
    assert!(
        files(&dir.join("from_flags")) == want,
        "flags and recipe bake other bytes"
    );

    let mut print = flags(&model, "from_printed");
    print.push("--print-recipe");
    let o = kiln(&print, &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !dir.join("from_printed").exists(),
        "--print-recipe bakes nothing"
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("    clips:\n      - { name: \"wave\", embedded: \"wave\", fps: 15 }\n    directions: [0, 90]\n    size: 96x128\n    output: { dir: \"from_printed\", gif: \"{name}_{dir}.gif\" }\n"),
        "{text}"
    );
    std::fs::write(dir.join("printed.yaml"), text).unwrap();
    let o = kiln(&["bake", "printed.yaml"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        files(&dir.join("from_printed")) == want,
        "the printed recipe bakes other bytes"
    );
}

#[test]
fn a_bad_flag_value_gets_the_recipes_message() {
    let dir = tempdir("flag-bake-bad");
    let model = tentacle();
    let o = kiln(&["bake", "--model", &model, "--pitch", "high"], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("<command line>:5:12")
            && stderr(&o).contains("expected a number, got `high`"),
        "{}",
        stderr(&o)
    );
    // The same range check as a recipe's, word for word.
    let o = kiln(&["bake", "--model", &model, "--directions", "0"], &dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::write(
        dir.join("r.yaml"),
        format!("# What `kiln bake --model` bakes; `kiln bake` takes it as a recipe.\njobs:\n  - name: \"kiln_tentacle\"\n    model: \"{model}\"\n    directions: 0\n"),
    )
    .unwrap();
    let from_file = kiln(&["bake", "r.yaml"], &dir);
    assert_eq!(
        stderr(&o).replace("<command line>", "r.yaml"),
        stderr(&from_file)
    );
    // Job flags need --model; --model takes no recipe file.
    let o = kiln(&["bake", "--size", "64"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let o = kiln(&["bake", "r.yaml", "--model", &model], &dir);
    assert_eq!(o.status.code(), Some(2));
}
