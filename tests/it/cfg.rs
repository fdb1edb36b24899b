//! model.cfg reader: the DayZ zombie skeleton, the syntax subset, skeleton
//! inheritance both ways, and malformed input failing with line:column.

use kiln::internals::formats::arma::cfg::{self, CfgValue, Skeleton};

const MODEL_CFG: &str = "arma/earlbalai+DayZ-Source/Legacy/dayz_anim/zmb/model.cfg";

#[test]
fn corpus_dayz_zombie_skeleton() {
    let Some(path) = crate::common::corpus(MODEL_CFG) else {
        return;
    };
    let c = cfg::parse_file(&path).unwrap();
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let names: Vec<&str> = c.root.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["CfgSkeletons", "CfgModels"]);
    let models = c.root.class("CfgModels").unwrap();
    assert_eq!(models.classes.len(), 116);
    let man = models.class("ArmaMan").unwrap();
    assert_eq!(man.base.as_deref(), Some("Default"));
    assert_eq!(
        man.entry("skeletonName"),
        Some(&CfgValue::String("OFP2_ManSkeleton".into()))
    );
    let Some(CfgValue::Array(sections)) = man.entry("sections") else {
        panic!("sections")
    };
    assert_eq!(sections.len(), 11);
    assert_eq!(sections[3], CfgValue::String("l_leg_in jury".into()));
    // Class names with dashes occur in the wild.
    let odd = models.class("zombie_kneelFeeding3_109-308").unwrap();
    assert_eq!(odd.base.as_deref(), Some("ArmaMan"));

    let sk = cfg::skeletons(&c);
    assert_eq!(sk.len(), 2);
    assert_eq!(
        sk[0],
        Skeleton {
            name: "Default".into(),
            base: None,
            inherit: None,
            bones: vec![],
            is_discrete: true,
            pivots_model: None,
        }
    );
    let m = &sk[1];
    assert_eq!(m.name, "OFP2_ManSkeleton");
    assert!(!m.is_discrete);
    assert_eq!(m.inherit, None);
    assert_eq!(m.pivots_model, None);
    assert_eq!(m.bones.len(), 132);
    let pair = |b: &str, p: &str| (b.to_string(), p.to_string());
    assert_eq!(m.bones[0], pair("Pelvis", ""));
    assert_eq!(m.bones[1], pair("Spine", "Pelvis"));
    assert_eq!(m.bones[10], pair("head", "neck1"));
    assert_eq!(m.bones[100], pair("RightArmRoll", "RightArm"));
    assert_eq!(m.bones[131], pair("RightToeBase", "RightFoot"));
    assert_eq!(
        cfg::model_skeleton_name(&c, "zmbStandDeath2").as_deref(),
        Some("OFP2_ManSkeleton")
    );
    assert_eq!(cfg::model_skeleton_name(&c, "Default"), None);
    assert_eq!(cfg::model_skeleton_name(&c, "NoSuchModel"), None);
    let resolved = cfg::resolve_bones(&sk, "ofp2_manskeleton").unwrap();
    assert_eq!(resolved, m.bones);
    // Every parent is a bone defined earlier (or the root).
    for (i, (_, parent)) in resolved.iter().enumerate() {
        assert!(
            parent.is_empty() || resolved[..i].iter().any(|(b, _)| b == parent),
            "bone {i} parent {parent}"
        );
    }
}

const SYNTAX: &str = r#"
#define BONE(a) a
#include "other.hpp"
class CfgPatches;   // forward
/* block
   comment */ class Base { x = 1.5; s = "say ""hi"""; w = true; arr[] = {1, "two", {3, -4e1}, }; };
class Kid : Base { arr[] += {5}; neg = -2; };
"#;

#[test]
fn syntax_subset() {
    let c = cfg::parse(SYNTAX).unwrap();
    assert_eq!(
        c.notes,
        [
            "line 2: skipped preprocessor line `#define BONE(a) a`",
            "line 3: skipped preprocessor line `#include \"other.hpp\"`"
        ]
    );
    let r = &c.root;
    assert_eq!(r.classes.len(), 3);
    assert!(r.classes[0].forward);
    assert_eq!(r.classes[0].name, "CfgPatches");
    let base = r.class("base").unwrap();
    assert_eq!(
        base.entries,
        vec![
            ("x".to_string(), CfgValue::Number(1.5)),
            ("s".to_string(), CfgValue::String("say \"hi\"".into())),
            ("w".to_string(), CfgValue::Word("true".into())),
            (
                "arr".to_string(),
                CfgValue::Array(vec![
                    CfgValue::Number(1.0),
                    CfgValue::String("two".into()),
                    CfgValue::Array(vec![CfgValue::Number(3.0), CfgValue::Number(-40.0)]),
                ])
            ),
        ]
    );
    let kid = r.class("Kid").unwrap();
    assert_eq!(kid.base.as_deref(), Some("Base"));
    assert_eq!(
        kid.entries,
        vec![
            (
                "arr".to_string(),
                CfgValue::ArrayAppend(vec![CfgValue::Number(5.0)])
            ),
            ("neg".to_string(), CfgValue::Number(-2.0)),
        ]
    );
}

const INHERIT: &str = r#"
class CfgSkeletons {
  class Core { isDiscrete = 0; skeletonBones[] = {"root", "", "hip", "root"}; pivotsModel = "a\piv.p3d"; };
  class Arms { skeletonInherit = "Core"; skeletonBones[] = {"arm", "hip", "hand", "arm"}; };
  class ArmsCopy : Arms {};
  class More : Arms { skeletonBones[] += {"finger", "hand", "odd"}; };
  class LoopA { skeletonInherit = "LoopB"; };
  class LoopB { skeletonInherit = "LoopA"; };
  class Orphan { skeletonInherit = "Nobody"; };
  class SelfBase : SelfBase {};
};
"#;

#[test]
fn skeleton_inheritance() {
    let c = cfg::parse(INHERIT).unwrap();
    let sk = cfg::skeletons(&c);
    let names: Vec<&str> = sk.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["Core", "Arms", "ArmsCopy", "More", "LoopA", "LoopB", "Orphan", "SelfBase"]
    );
    assert_eq!(sk[0].pivots_model.as_deref(), Some("a\\piv.p3d"));
    assert_eq!(sk[2].inherit.as_deref(), Some("Core"));
    assert_eq!(sk[2].base.as_deref(), Some("Arms"));
    let list = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let arms = list(&[
        ("root", ""),
        ("hip", "root"),
        ("arm", "hip"),
        ("hand", "arm"),
    ]);
    assert_eq!(cfg::resolve_bones(&sk, "Arms").unwrap(), arms);
    assert_eq!(cfg::resolve_bones(&sk, "armscopy").unwrap(), arms);
    let mut more = arms.clone();
    more.extend(list(&[("finger", "hand"), ("odd", "")]));
    assert_eq!(cfg::resolve_bones(&sk, "More").unwrap(), more);
    let e = cfg::resolve_bones(&sk, "LoopA").unwrap_err().to_string();
    assert!(e.contains("cycle"), "{e}");
    let e = cfg::resolve_bones(&sk, "Orphan").unwrap_err().to_string();
    assert!(e.contains("`Nobody`"), "{e}");
    let e = cfg::resolve_bones(&sk, "Missing").unwrap_err().to_string();
    assert!(e.contains("`Missing` is not defined"), "{e}");
    assert!(cfg::resolve_bones(&sk, "SelfBase").unwrap().is_empty());
}

/// Thousands of classes that are their own base, or each the base of the
/// next, cost each class at most the inheritance bound, not the whole chain
/// times a scan of every class: 2,000 self-cycles took minutes before.
#[test]
fn inheritance_is_bounded_and_does_not_rescan_the_classes() {
    let n = 2000;
    let mut cycles = String::from("class CfgSkeletons {\n");
    for i in 0..n {
        cycles += &format!("class s{i}: s{i} {{ skeletonBones[] += {{\"b{i}\", \"\"}}; }};\n");
    }
    cycles += "};\n";
    let start = std::time::Instant::now();
    let sk = cfg::skeletons(&cfg::parse(&cycles).unwrap());
    assert_eq!(sk.len(), n);
    // A cycle ends where it comes back: its own append, once.
    assert_eq!(sk[7].bones, vec![("b7".to_string(), String::new())]);

    // A chain: c0 holds the bones, c{i} inherits c{i-1}; skeleton k{i}
    // inherits k{i-1}'s bones through skeletonInherit.
    let mut chain =
        String::from("class CfgSkeletons {\nclass c0 { skeletonBones[] = {\"root\", \"\"}; };\n");
    for i in 1..n {
        chain += &format!("class c{i}: c{}  {{}};\n", i - 1);
    }
    chain += "class k0 { skeletonBones[] = {\"k0\", \"\"}; };\n";
    for i in 1..40 {
        chain += &format!(
            "class k{i} {{ skeletonInherit = \"k{}\"; skeletonBones[] = {{\"k{i}\", \"k{}\"}}; }};\n",
            i - 1,
            i - 1
        );
    }
    chain += "};\n";
    let sk = cfg::skeletons(&cfg::parse(&chain).unwrap());
    let bones = |name: &str| {
        sk.iter()
            .find(|s| s.name == name)
            .map(|s| s.bones.len())
            .unwrap()
    };
    // 32 bases up is found, 33 is past the bound.
    assert_eq!((bones("c32"), bones("c33"), bones("c1999")), (1, 0, 0));
    assert_eq!(cfg::resolve_bones(&sk, "k31").unwrap().len(), 32);
    let e = cfg::resolve_bones(&sk, "k39").unwrap_err().to_string();
    assert!(e.contains("deeper than 32"), "{e}");
    // Linear work: well under a second even unoptimised; minutes before.
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

#[test]
fn errors_name_line_and_column() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("class A {\n  x = 1\n};", 3, 1, "expected `;`"),
        ("class A {\n  x = 1;\n", 3, 1, "end of file inside a class"),
        ("a[] = {1, 2", 1, 12, "found end of file"),
        ("a[] = {1,", 1, 10, "end of file inside an array"),
        ("a = \"open;\n", 1, 5, "unterminated string"),
        ("/* never closed", 1, 1, "unterminated /* comment"),
        ("class { };", 1, 7, "expected a class name"),
        ("a += 1;", 1, 3, "only allowed on arrays"),
        ("a[] = 5;", 1, 7, "needs a `{...}` value"),
        ("a[] = {1 {2}};", 1, 10, "expected `,` or `}`"),
        ("a = ;", 1, 5, "expected a value"),
        ("}", 1, 1, "expected a class or property name"),
    ];
    for (text, line, column, msg) in cases {
        let e = cfg::parse(text).unwrap_err();
        assert_eq!((e.line, e.column), (*line, *column), "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
    let deep = "class A {".repeat(100_000);
    let e = cfg::parse(&deep).unwrap_err();
    assert!(e.message.contains("nested deeper"), "{e}");
    let deep = format!("a[] = {}", "{".repeat(100_000));
    assert!(cfg::parse(&deep)
        .unwrap_err()
        .message
        .contains("nested deeper"));
}

#[test]
fn malformed_corpus_text_never_panics() {
    let text = std::fs::read_to_string(MODEL_CFG).unwrap_or_else(|_| INHERIT.repeat(20));
    let bytes = text.as_bytes();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let step = (bytes.len() / 400).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        if let Ok(c) = cfg::parse(&String::from_utf8_lossy(&bytes[..cut])) {
            let _ = cfg::skeletons(&c);
        }
    }
    let specials = b"{};=\"/*#[]+:,\n";
    for _ in 0..400 {
        let mut t = bytes.to_vec();
        for _ in 0..4 {
            let i = (next() % t.len() as u64) as usize;
            t[i] = specials[(next() % specials.len() as u64) as usize];
        }
        if let Ok(c) = cfg::parse(&String::from_utf8_lossy(&t)) {
            for s in cfg::skeletons(&c) {
                let _ = cfg::resolve_bones(&cfg::skeletons(&c), &s.name);
            }
        }
    }
}
