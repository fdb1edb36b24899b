//! Ragnarok map files through `kiln inspect` (map rendering comes later).

mod common;

use common::{kiln, stderr, tempdir};

#[test]
fn inspect_rsw_and_gnd() {
    let Some(data) = common::corpus("ro/hurtsky+RO-Clientresources/data") else {
        return;
    };
    let tmp = tempdir("map");
    let o = kiln(
        &[
            "inspect",
            data.join("fishingboat.rsw").to_str().unwrap(),
            "--json",
        ],
        &tmp,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["version"], "2.1");
    let d = &j["details"];
    assert_eq!(
        (
            d["models"].as_u64(),
            d["lights"].as_u64(),
            d["sounds"].as_u64(),
            d["effects"].as_u64()
        ),
        (Some(22), Some(5), Some(6), Some(0))
    );
    assert_eq!(d["instances"].as_array().unwrap().len(), 22);
    let text = String::from_utf8_lossy(
        &kiln(
            &["inspect", data.join("sm_pri.rsw").to_str().unwrap()],
            &tmp,
        )
        .stdout,
    )
    .into_owned();
    assert!(
        text.contains("24 models, 3 lights, 0 sounds, 2 effects")
            && text.contains("(file not found)"),
        "{text}"
    );

    let o = kiln(
        &[
            "inspect",
            data.join("poring_c01.gnd").to_str().unwrap(),
            "--json",
        ],
        &tmp,
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            j["details"]["width"].as_i64(),
            j["details"]["height"].as_i64()
        ),
        (Some(100), Some(100))
    );
    assert_eq!(j["details"]["surfaces"], 3020);

    let Some(bad) = common::corpus("ro/asteanya+Aste-Grf/data/mhisle01.rsw") else {
        return;
    };
    let o = kiln(&["inspect", bad.to_str().unwrap()], &tmp);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("mhisle01.rsw")
            && stderr(&o).contains("at byte 0")
            && stderr(&o).contains("GRSW"),
        "{}",
        stderr(&o)
    );
}
