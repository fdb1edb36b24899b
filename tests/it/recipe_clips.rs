//! Recipe clips, model options, skeletons and engine keys: how they resolve,
//! how a job's clip choice replaces the defaults, and the errors each gives
//! at its line and column; the README's clips example.

use crate::recipe::{documented_examples, err, parse};
use kiln::internals::bake::recipe::defaults::DEFAULT_CLIP_NAME;
use kiln::internals::bake::recipe::*;
use kiln::internals::scene::clip::{Clip, Step};
use kiln::internals::spec::{FileRef, Lod, RestPose, SkeletonSpec};
use std::path::{Path, PathBuf};

const CLIPS: &str = r#"jobs:
  - name: warrior
    model: skeleton_warrior_axe.model
    clips:
      - { name: walk, animation: animations/walk.animation, fps: 24 }
      - { name: idle, animation: animations/idle.animation, frames: 8 }
      - { name: still, time: 0.5 }
      - { animation: anims/attack.animation, start: 0.25, end: 1 }
      - { end: 1 }
    pose: bind
    materials:
      skeleton_warrior: textures/skeleton_dif.png
      axe: ../shared/axe.png
    skeleton: { config: model.cfg, class: OFP2_ManSkeleton }
    duration: 1.2
    lod: 3
    output: { gif: "{name}_{clip}_{dir}.gif", frames: "{clip}/{yaw}_{frame}.png" }
  - name: ruin
    model: ruin.p3d
    clip: { time: 0 }
    lod: { resolution: 1.5 }
"#;

#[test]
fn clips_and_model_options_resolve() {
    let jobs = parse(CLIPS);
    let w = &jobs[0];
    assert!(w.named_clips);
    let fps24 = Clip::Range {
        start: 0.0,
        end: None,
        step: Step::Fps(24.0),
    };
    assert_eq!(
        w.clips,
        vec![
            ClipSpec {
                embedded: Default::default(),
                name: "walk".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/animations/walk.animation"),
                    written: "animations/walk.animation".into()
                }),
                clip: fps24,
                looping: None,
                root_motion: None,
                line: 5,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "idle".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/animations/idle.animation"),
                    written: "animations/idle.animation".into()
                }),
                clip: Clip::Range {
                    start: 0.0,
                    end: None,
                    step: Step::Frames(8)
                },
                looping: None,
                root_motion: None,
                line: 6,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "still".into(),
                animation: None,
                clip: Clip::Still { time: 0.5 },
                looping: None,
                root_motion: None,
                line: 7,
            },
            // Unnamed: named after the animation file, else the position.
            ClipSpec {
                embedded: Default::default(),
                name: "attack".into(),
                animation: Some(FileRef {
                    disk: PathBuf::from("recipes/anims/attack.animation"),
                    written: "anims/attack.animation".into()
                }),
                clip: Clip::Range {
                    start: 0.25,
                    end: Some(1.0),
                    step: Step::Fps(12.0)
                },
                looping: None,
                root_motion: None,
                line: 8,
            },
            ClipSpec {
                embedded: Default::default(),
                name: "clip4".into(),
                animation: None,
                clip: Clip::Range {
                    start: 0.0,
                    end: Some(1.0),
                    step: Step::Fps(12.0)
                },
                looping: None,
                root_motion: None,
                line: 9,
            },
        ]
    );
    assert_eq!(w.model.pose, RestPose::Bind);
    assert_eq!(
        w.model.materials,
        vec![
            (
                "skeleton_warrior".to_string(),
                FileRef {
                    disk: PathBuf::from("recipes/textures/skeleton_dif.png"),
                    written: "textures/skeleton_dif.png".into()
                }
            ),
            (
                "axe".to_string(),
                FileRef {
                    disk: PathBuf::from("recipes/../shared/axe.png"),
                    written: "../shared/axe.png".into()
                }
            ),
        ]
    );
    assert_eq!(
        w.model.animation.skeleton,
        Some(SkeletonSpec::Config {
            config: FileRef {
                disk: PathBuf::from("recipes/model.cfg"),
                written: "model.cfg".into()
            },
            class: "OFP2_ManSkeleton".into()
        })
    );
    assert_eq!(w.model.animation.duration, Some(1.2));
    assert_eq!(w.model.lod, Some(Lod::Index(3)));
    assert_eq!(
        w.gif_path(1, 2),
        Some(PathBuf::from("recipes/out/warrior/warrior_idle_2.gif"))
    );
    assert_eq!(
        w.frame_path(4, 1, 7),
        Some(PathBuf::from("recipes/out/warrior/clip4/45_7.png"))
    );
    assert_eq!(w.frame_path(5, 0, 0), None);

    let r = &jobs[1];
    assert!(!r.named_clips);
    assert_eq!(
        r.clips,
        vec![ClipSpec {
            embedded: Default::default(),
            name: DEFAULT_CLIP_NAME.into(),
            animation: None,
            clip: Clip::Still { time: 0.0 },
            looping: None,
            root_motion: None,
            line: 20,
        }]
    );
    assert_eq!(r.model.lod, Some(Lod::Resolution(1.5)));
    // Built-in defaults of the model options.
    assert_eq!(r.model.pose, RestPose::Nodes);
    assert_eq!(r.model.materials, Vec::<(String, FileRef)>::new());
    assert_eq!(r.model.animation.skeleton, None);
    assert_eq!(r.model.animation.duration, None);
}

#[test]
fn clip_choice_of_a_job_replaces_the_defaults() {
    let jobs = parse(
        "defaults:\n  clips: [{name: a}, {name: b, time: 1}]\n  pose: bind\n  output: {gif: '{clip}_{dir}.gif'}\njobs:\n  - name: x\n    model: m.rsm\n  - name: y\n    model: m.rsm\n    clip: {frames: 2}\n  - name: z\n    model: m.rsm\n",
    );
    let names: Vec<&str> = jobs[0].clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(jobs[0].named_clips);
    assert_eq!(jobs[0].clips[1].line, 2);
    assert_eq!(jobs[0].model.pose, RestPose::Bind);
    assert_eq!(jobs[1].clips.len(), 1);
    assert_eq!(jobs[1].clips[0].name, "default");
    assert_eq!(jobs[1].clips[0].line, 10);
    assert!(!jobs[1].named_clips);
    // No clip at all: the default clip, on the job's own line.
    let plain = parse("jobs:\n  - name: a\n    model: m.rsm\n");
    assert_eq!(plain[0].clips[0].line, 2);
    assert_eq!(plain[0].clips[0].name, "default");
    assert_eq!(jobs[2].clips.len(), 2);
}

#[test]
fn clip_and_model_option_errors() {
    let head = "jobs:\n  - name: a\n    model: m.rsm\n";
    let cases: &[(&str, &str)] = &[
        (
            "    clip: {fps: 3}\n    clips: [{name: w}]\n",
            "recipe.yaml:5:12: job 'a': give either `clip` or `clips`, not both",
        ),
        (
            "    clips: []\n",
            "recipe.yaml:4:12: job 'a': `clips` needs at least one clip",
        ),
        (
            "    clips: [{name: w}, {name: w}]\n",
            "recipe.yaml:4:31: job 'a': `clips[1]` is named `w` like `clips[0]`; clip names must be unique",
        ),
        (
            "    clips: [{animation: x/walk.anim}, {animation: y/walk.rtm}]\n",
            "recipe.yaml:4:51: job 'a': `clips[1]` is named `walk` like `clips[0]`; clip names must be unique",
        ),
        (
            "    clips: [{name: w, time: 0, fps: 3}]\n",
            "recipe.yaml:4:37: job 'a': `clips[0].time` takes a single frame; `clips[0].fps` cannot be used with it",
        ),
        (
            "    clips:\n      - {name: w}\n      - {name: v, fps: 0}\n",
            "recipe.yaml:6:24: job 'a': `clips[1].fps` must be in [0.01, 1000], got 0",
        ),
        (
            "    clips: [{name: w, start: 2, end: 1}]\n",
            "recipe.yaml:4:38: job 'a': `clips[0].end` (1) must be after `clips[0].start` (2)",
        ),
        (
            "    clips: [{name: w, speed: 2}]\n",
            "recipe.yaml:4:23: job 'a': unknown key `speed`, expected one of name, animation, embedded, start, end, fps, frames, time, loop, root_motion",
        ),
        (
            "    clips: [{name: 'w/x'}]\n",
            "recipe.yaml:4:20: job 'a': `clips[0].name`: clip name `w/x` is used in file names, so it cannot contain /, \\, {, } or control characters",
        ),
        (
            "    clips: [{name: w, animation: ''}]\n",
            "recipe.yaml:4:34: job 'a': `clips[0].animation` is empty",
        ),
        (
            "    clips: [{name: w}, {name: v}]\n    output: {gif: '{name}_{dir}.gif'}\n",
            "recipe.yaml:5:19: job 'a': `output.gif` must contain `{clip}`, or its files overwrite each other",
        ),
        (
            "    clips: [{name: w}, {name: v}]\n    output: {frames: '{dir}_{frame}.png'}\n",
            "recipe.yaml:5:22: job 'a': `output.frames` must contain `{clip}`, or its files overwrite each other",
        ),
        (
            "    clips: [{name: w, time: 0}, {name: v}]\n    directions: 1\n    output: {frames: '{clip}.png'}\n",
            "recipe.yaml:6:22: job 'a': `output.frames` must contain `{frame}`, or its files overwrite each other",
        ),
        (
            "    output: {sheet: '{clip}.png'}\n",
            "recipe.yaml:4:21: job 'a': `output.sheet`: placeholder `{clip}` cannot be used in `{clip}.png`, expected only `{name}`",
        ),
        (
            "    pose: tpose\n",
            "recipe.yaml:4:11: job 'a': unknown variant `tpose`, expected one of rest, bind",
        ),
        (
            "    materials: {skin: ''}\n",
            "recipe.yaml:4:23: job 'a': `materials.skin` is empty; give a texture file",
        ),
        (
            "    materials: [a.png]\n",
            "recipe.yaml:4:16: job 'a': expected mapping start",
        ),
        (
            "    materials: {a: x.png, a: y.png}\n",
            "recipe.yaml:4:27: job 'a': duplicate mapping key: a",
        ),
        (
            "    lod: {res: 1}\n",
            "recipe.yaml:4:10: job 'a': unknown key `res`, expected resolution",
        ),
        (
            "    skeleton: {config: a.cfg}\n",
            "recipe.yaml:4:15: job 'a': `skeleton` has `config` but no `class` (the skeleton's class name in it)",
        ),
        (
            "    skeleton: {config: a.cfg, class: ''}\n",
            "recipe.yaml:4:38: job 'a': `skeleton.class` is empty",
        ),
        (
            "    duration: 0\n",
            "recipe.yaml:4:15: job 'a': `duration` must be in (0, 86400], got 0",
        ),
        (
            "    lod: -1\n",
            "recipe.yaml:4:10: job 'a': `lod` index must be in 0..=255, got -1",
        ),
        (
            "    lod: 1.5\n",
            "recipe.yaml:4:10: job 'a': expected a LOD index (a whole number) or `{resolution: R}`, got 1.5",
        ),
        (
            "    lod: {resolution: -2}\n",
            "recipe.yaml:4:10: job 'a': `lod.resolution` must be a finite number at least 0, got -2",
        ),
    ];
    let mut wrong = Vec::new();
    for (extra, want) in cases {
        let text = format!("{head}{extra}");
        let got = err(&text);
        if &got != want {
            wrong.push(format!("recipe:\n{text}\n  got: {got}\n want: {want}"));
        }
    }
    // From `defaults:`, labelled with the job that uses them.
    let got =
        err("defaults:\n  clips: [{name: w}, {name: w}]\njobs:\n  - name: a\n    model: m.rsm\n");
    let want = "recipe.yaml:2:29: defaults (used by job 'a'): `clips[1]` is named `w` like `clips[0]`; clip names must be unique";
    if got != want {
        wrong.push(format!("defaults case\n  got: {got}\n want: {want}"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn readme_clips_example_is_valid() {
    for section in documented_examples() {
        readme_clips_example_holds(&section);
    }
}

fn readme_clips_example_holds(section: &str) {
    let first = section.find("```yaml\n").expect("first yaml block") + 8;
    let rest = &section[first..];
    let start = rest.find("```yaml\n").expect("second yaml block") + 8;
    let len = rest[start..].find("```").unwrap();
    let jobs = Recipe::from_str(&rest[start..start + len], Path::new("r/demo.yaml"))
        .unwrap_or_else(|e| panic!("README clips example: {e}"))
        .jobs()
        .unwrap();
    let w = &jobs[0];
    let names: Vec<&str> = w.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["walk", "idle", "still"]);
    assert_eq!(
        w.clips[0].animation.as_ref().map(|f| f.disk.clone()),
        Some(PathBuf::from(
            "r/animations/skeleton_warrior_axe_walk.animation"
        ))
    );
    assert_eq!(w.model.pose, RestPose::Nodes);
    assert_eq!(
        w.gif_path(2, 3),
        Some(PathBuf::from("r/out/warrior/warrior_still_3.gif"))
    );
    let s = &jobs[1];
    assert_eq!(s.model.lod, Some(Lod::Index(0)));
    assert_eq!(s.model.animation.duration, Some(1.2));
    assert_eq!(
        s.model.animation.skeleton.as_ref().and_then(|k| match k {
            SkeletonSpec::Config { class, .. } => Some(class.as_str()),
            SkeletonSpec::Bones(_) => None,
        }),
        Some("OFP2_ManSkeleton")
    );
    assert_eq!(s.clips[0].name, "run");
}

#[test]
fn skeleton_inline_bones_and_their_errors() {
    let ok = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { bones: [[Pelvis, \"\"], [Spine, Pelvis]] }\n";
    let jobs = Recipe::from_str(ok, Path::new("r/x.yaml"))
        .unwrap()
        .jobs()
        .unwrap();
    assert_eq!(
        jobs[0].model.animation.skeleton,
        Some(SkeletonSpec::Bones(vec![
            ("Pelvis".to_string(), String::new()),
            ("Spine".to_string(), "Pelvis".to_string())
        ]))
    );
    let bad = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { bones: [[Pelvis]] }\n";
    let e = Recipe::from_str(bad, Path::new("r/x.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.yaml:4:") && e.contains("job 'a'") && e.contains("[bone, parent] pairs"),
        "{e}"
    );
    let both = "jobs:\n  - name: a\n    model: m.p3d\n    skeleton: { config: m.cfg, bones: [[A, \"\"]] }\n";
    let e = Recipe::from_str(both, Path::new("r/x.yaml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("either `config` and `class`, or `bones"), "{e}");
}

/// The keys of sheets an engine takes as they are — root motion, scale,
/// framing groups, packing, metadata formats, clip loops, APNG, prune —
/// resolve to what they say, with the defaults existing recipes keep.
#[test]
fn engine_keys_resolve() {
    let jobs = parse(
        "defaults:\n  pack: { layout: packed, padding: 2 }\n  metadata: [texturepacker-hash, godot]\njobs:\n  - name: a\n    model: m.model\n    root_motion: keep\n    scale: { pixels_per_unit: 32 }\n    framing: { group: monsters }\n    pack: { trim: true, extrude: 1, max_size: 2048x1024, power_of_two: true }\n    clips:\n      - { name: walk, loop: true, root_motion: in_place }\n      - { name: door, loop: false }\n    output: { apng: '{clip}_{dir:02}.png', prune: true }\n  - name: b\n    model: m.model\n    travel: true\n    metadata: [pixi, aseprite, texturepacker-array]\n    pack: { layout: grid }\n  - name: c\n    model: m.model\n    metadata: []\n",
    );
    let a = &jobs[0];
    assert_eq!(a.model.animation.root_motion, kiln::RootMotion::Keep);
    assert_eq!(a.view.framing.pixels_per_unit, Some(32.0));
    assert_eq!(
        a.framing_group.as_ref().map(|g| (g.name.as_str(), g.line)),
        Some(("monsters", 9))
    );
    assert_eq!(
        a.pack,
        PackSpec {
            layout: PackLayout::Packed,
            trim: true,
            padding: 2,
            extrude: 1,
            max_size: (2048, 1024),
            power_of_two: true,
        }
    );
    assert_eq!(
        (a.clips[0].looping, a.clips[0].root_motion),
        (Some(true), Some(kiln::RootMotion::InPlace))
    );
    assert_eq!(
        (a.clips[1].looping, a.clips[1].root_motion),
        (Some(false), None)
    );
    assert_eq!(
        a.output.metadata,
        [
            (
                MetaFormat::TexturePackerHash,
                PathBuf::from("recipes/out/a/a.json")
            ),
            (MetaFormat::Godot, PathBuf::from("recipes/out/a/a.tres")),
        ]
    );
    assert!(a.output.prune);
    assert_eq!(
        a.apng_path(1, 3),
        Some(PathBuf::from("recipes/out/a/door_03.png"))
    );
    let b = &jobs[1];
    assert_eq!(
        b.model.animation.root_motion,
        kiln::RootMotion::Keep,
        "`travel: true` is keep"
    );
    // `pack:` merges key by key: the defaults' padding stays.
    assert_eq!(
        b.pack,
        PackSpec {
            padding: 2,
            ..PackSpec::default()
        }
    );
    assert_eq!(b.output.meta, None);
    let names: Vec<&str> = b.output.metadata.iter().map(|(f, _)| f.name()).collect();
    assert_eq!(names, ["pixi", "aseprite", "texturepacker-array"]);
    assert_eq!(
        b.output.metadata[2].1,
        PathBuf::from("recipes/out/b/b.array.json")
    );
    assert!(jobs[2].output.metadata.is_empty());
    // Unset, everything stays as before: in place, fitted, a grid, the
    // JSON hash, looping as the format says.
    let plain = &parse("jobs:\n  - name: p\n    model: m.rsm\n")[0];
    assert_eq!(plain.model.animation.root_motion, kiln::RootMotion::InPlace);
    assert_eq!(plain.view.framing.pixels_per_unit, None);
    assert_eq!(plain.framing_group, None);
    assert_eq!(plain.pack, PackSpec::default());
    assert_eq!(plain.pack.max_size, (32768, 32768));
    assert_eq!(plain.clips[0].looping, None);
    assert_eq!(
        plain.output.metadata,
        [(
            MetaFormat::TexturePackerHash,
            PathBuf::from("recipes/out/p/p.json")
        )]
    );
    assert!(!plain.output.prune);
    let packed = &parse("jobs:\n  - name: p\n    model: m.rsm\n    pack: { layout: packed }\n")[0];
    assert_eq!(packed.pack.max_size, (4096, 4096));
}

#[test]
fn engine_key_errors_point_at_the_value() {
    let head = "jobs:\n  - name: a\n    model: m.rsm\n";
    let cases: &[(&str, &str)] = &[
        (
            "    root_motion: inplace\n",
            "recipe.yaml:4:18: job 'a': unknown variant `inplace`, expected one of in_place, keep",
        ),
        (
            "    root_motion: keep\n    travel: true\n",
            "recipe.yaml:5:13: job 'a': give `root_motion` or the older `travel`, not both (`travel: true` is `root_motion: keep`)",
        ),
        (
            "    scale: { pixels_per_unit: 0 }\n",
            "recipe.yaml:4:31: job 'a': `scale.pixels_per_unit` must be in (0, 1000000], got 0",
        ),
        (
            "    scale: { ppu: 3 }\n",
            "recipe.yaml:4:14: job 'a': unknown key `ppu`, expected one of pixels_per_unit",
        ),
        (
            "    scale: {}\n",
            "recipe.yaml:4:12: job 'a': `scale` needs `pixels_per_unit: N` (pixels per model unit)",
        ),
        (
            "    framing: { group: '' }\n",
            "recipe.yaml:4:23: job 'a': `framing.group` is empty",
        ),
        (
            "    pack: { trim: true }\n",
            "recipe.yaml:4:19: job 'a': `pack.trim` needs `pack.layout: packed`: a grid keeps every cell whole",
        ),
        (
            "    pack: { layout: tight }\n",
            "recipe.yaml:4:21: job 'a': unknown variant `tight`, expected one of grid, packed",
        ),
        (
            "    pack: { layout: packed, padding: 300 }\n",
            "recipe.yaml:4:38: job 'a': `pack.padding` must be in 0..=256, got 300",
        ),
        (
            "    pack: { max_size: 40000x10 }\n",
            "recipe.yaml:4:23: job 'a': `pack.max_size` sides must be in 1..=32768, got 40000x10",
        ),
        (
            "    pack: { max_size: 0x100 }\n",
            "recipe.yaml:4:23: job 'a': `pack.max_size` `0x100` reads as a number; write it as WIDTHxHEIGHT",
        ),
        (
            "    metadata: [pixi, unity]\n",
            "recipe.yaml:4:22: job 'a': unknown metadata format `unity`, expected one of texturepacker-hash, texturepacker-array, aseprite, pixi, godot",
        ),
        (
            "    metadata: [pixi, godot, pixi]\n",
            "recipe.yaml:4:29: job 'a': `metadata` lists pixi twice",
        ),
        (
            "    metadata: [texturepacker-hash]\n    output: { meta: false }\n",
            "recipe.yaml:4:15: job 'a': `metadata` lists texturepacker-hash, whose file `output.meta: false` switches off",
        ),
        (
            "    metadata: [pixi]\n    output: { meta: x.json }\n",
            "recipe.yaml:5:21: job 'a': `output.meta` names the texturepacker-hash file, which `metadata` does not list",
        ),
        (
            "    clips: [{ name: w, loop: maybe }]\n",
            "recipe.yaml:4:30: job 'a': invalid boolean",
        ),
        (
            "    output: { apng: '{name}.png' }\n",
            "recipe.yaml:4:21: job 'a': `output.apng` must contain `{dir}` or `{yaw}`, or its files overwrite each other",
        ),
        (
            "    output: { frames: '{dir}_{frame:3}.png' }\n",
            "recipe.yaml:4:23: job 'a': `output.frames`: `{frame:3}` in `{dir}_{frame:3}.png`: write a zero-padded width as `{frame:03}` (1 to 9 digits)",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(tail, want)| {
            let got = err(&format!("{head}{tail}"));
            (&got != want).then(|| format!("{tail}  got:  {got}\n  want: {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Jobs of one framing group must agree on what their camera depends on.
    assert_eq!(
        err("jobs:\n  - name: a\n    model: m.rsm\n    framing: { group: g }\n  - name: b\n    model: m.rsm\n    size: 64x64\n    framing: { group: g }\n"),
        "recipe.yaml:8:23: job 'b': framing group `g` shares one camera, but `size` differs from job 'a' in the same group"
    );
    assert_eq!(
        err("defaults:\n  framing: { group: g }\njobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    directions: 4\n"),
        "recipe.yaml:2:21: job 'b': framing group `g` shares one camera, but `directions` differs from job 'a' in the same group"
    );
}
