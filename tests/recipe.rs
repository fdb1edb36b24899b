use kiln::bake::recipe::*;
use std::path::Path;

fn err(text: &str) -> String {
    match Recipe::from_str(text, Path::new("recipe.yaml")) {
        Ok(_) => "OK".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn probe() {
    for t in [
        "jobs:\n  - name: a\n    model: m.rsm\n    sise: 3\n",
        "jobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    size: 0x4\n",
        "defaults:\n  size: 9000x3\njobs:\n  - name: a\n    model: m.rsm\n",
        "defaults:\n  size: 90x3\n  pitch: foo\njobs:\n  - name: a\n    model: m.rsm\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    clip: {fps: 12, frames: 3}\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    background: '#12345'\n",
        "jobs:\n  - name: a\n    model: m.rsm\n  - {name: b, model: m.rsm, antialias: 9}\n",
        "jobs:\n  - name: a\n    model: m.rsm\nfoo: 1\n",
        "jobs:\n  - name: a\n",
        "jobs:\n  - name: a\n    model: m.rsm\n  - name: a\n    model: m.rsm\n",
        "jobs:\n  - name: a\n    model: m.rsm\n  - name: b\n    model: m.rsm\n    output: {dir: out/a, sheet: a.png}\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    output: {frames: 'x_{frame}.png'}\n",
        "jobs:\n- name: a\n  model: m.rsm\n  camera: {zoom: 0}\n",
        "jobs: []\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    directions: [0, 90, x]\n",
        "jobs:\n  - name: a\n    model: [1]\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    clip: {time: 1, fps: 3}\n",
        "jobs:\n  - name: a\n    model: m.rsm\n    light: {yaw: 1, direction: [1,0,0]}\n",
        ": bad: yaml: [\n",
    ] {
        println!("{}", err(t));
    }
}
