//! Small synthetic maps of every version and reading, built in code: kiln's
//! own test fixtures (no real map newer than 2.1 is public).

use super::*;

/// Every version the parser knows, with a build number where the version
/// stores one (real ones where known: 2.5 build 227, 2.6 builds 161 and
/// 197, 2.7 builds 248 and 251).
pub const VERSIONS: [(u8, u8, Option<u32>); 19] = [
    (1, 0, None),
    (1, 1, None),
    (1, 2, None),
    (1, 3, None),
    (1, 4, None),
    (1, 5, None),
    (1, 6, None),
    (1, 7, None),
    (1, 8, None),
    (1, 9, None),
    (2, 0, None),
    (2, 1, None),
    (2, 2, Some(1)),
    (2, 3, Some(1)),
    (2, 4, Some(1)),
    (2, 5, Some(227)),
    (2, 6, Some(161)),
    (2, 6, Some(197)),
    (2, 7, Some(248)),
];

/// A map of the version in `layout` holding three model instances, two
/// lights, two sounds and two effects, interleaved, and a quad tree. Every
/// field the version and layout store holds its own value (so a misread
/// shows); fields they do not store hold what the parser gives them, so
/// `parse(write(m)) == m` apart from the warnings.
pub fn map(major: u8, minor: u8, build: Option<u32>, layout: Layout) -> Rsw {
    let mut rsw = Rsw::new(major, minor, build);
    let v = (major, minor);
    rsw.layout = layout;
    rsw.release = layout.release.then_some(1);
    rsw.render_flag = (v >= (2, 5)).then_some(1);
    rsw.ini = FixedName::new("fixture.ini", 40);
    rsw.gnd = FixedName::new("fixture.gnd", 40);
    rsw.gat = layout.gat_name.then(|| FixedName::new("fixture.gat", 40));
    rsw.src = FixedName::new("fixture.src", 40);
    if let Some(w) = rsw.water.as_mut() {
        w.level = 12.5;
        let late = v >= (1, 8);
        w.water_type = late.then_some(3);
        w.wave_height = late.then_some(1.25);
        w.wave_speed = late.then_some(2.5);
        w.wave_pitch = late.then_some(50.0);
        w.anim_speed = (v >= (1, 9)).then_some(4);
    }
    if let Some(l) = rsw.light.as_mut() {
        l.longitude = 45;
        l.latitude = 60;
        l.diffuse = [1.0, 0.9, 0.8];
        l.ambient = [0.3, 0.35, 0.4];
        l.shadow_opacity = (v >= (1, 7)).then_some(0.5);
    }
    rsw.bounds = (v >= (1, 6)).then_some([-500, 500, -400, 400]);
    rsw.extra_list = layout.extra_list.then(|| vec![7, -1]);
    rsw.objects = vec![
        model(v, layout, 0),
        light(1),
        sound(layout, 2),
        effect(3),
        model(v, layout, 4),
        sound(layout, 5),
        light(6),
        effect(7),
        model(v, layout, 8),
    ];
    rsw.quad_tree = Some(quad_tree([-500.0, -80.0, -400.0], [500.0, 20.0, 400.0]));
    rsw
}

/// Model instance number `i` of the fixture: file `fixture\model<i>.rsm`.
pub fn model(v: (u8, u8), layout: Layout, i: usize) -> Object {
    let f = i as f32;
    let named = v >= (1, 3);
    Object::Model(ModelInstance {
        name: named.then(|| FixedName::new(&format!("prop {i}"), 40)),
        anim_type: if named { 2 } else { 0 },
        anim_speed: if named { 0.5 + f } else { 1.0 },
        block_type: if named { i as i32 % 2 } else { 0 },
        flag: layout.model_flag.then_some((i / 4 % 2) as u8),
        // −1 everywhere but the markets, which hold small ids.
        extra: layout.model_extra.then_some(if i == 4 { 12 } else { -1 }),
        file: FixedName::new(&format!("fixture\\model{i}.rsm"), 80),
        node: FixedName::new(if i == 8 { "root" } else { "" }, 80),
        position: [10.0 * f - 40.0, -2.5 * f, 35.0 - 5.0 * f],
        rotation: [0.0, 15.0 * f, 0.0],
        scale: [1.0 + 0.25 * f, 1.0, 1.0 + 0.25 * f],
    })
}

fn light(i: usize) -> Object {
    let f = i as f32;
    Object::Light(LightSource {
        name: FixedName::new(&format!("light {i}"), 80),
        position: [f * 7.0, -30.0, -f * 3.0],
        color: [1.0, 0.5 + 0.0625 * f, 0.25],
        range: 40.0 + f,
    })
}

fn sound(layout: Layout, i: usize) -> Object {
    let f = i as f32;
    Object::Sound(Sound {
        name: FixedName::new(&format!("sound {i}"), 80),
        file: FixedName::new(&format!("effect\\wave{i}.wav"), 80),
        position: [-f * 4.0, -10.0, f * 6.0],
        volume: 0.75,
        width: 10 + i as i32,
        height: 20 + i as i32,
        range: 100.0 + f,
        cycle: layout.sound_cycle.then_some(4.0 + f),
    })
}

fn effect(i: usize) -> Object {
    let f = i as f32;
    Object::Effect(Effect {
        name: FixedName::new(&format!("effect {i}"), 80),
        position: [f, -5.0 * f, 2.0 * f],
        id: 40 + i as i32,
        delay: 60.0 + f,
        param: [1.0, 2.0, 3.0, f],
    })
}

/// A complete quad tree over the box `min..max`: each node's children
/// split it in x and z (south-west, south-east, north-west, north-east),
/// stored depth first as the client reads it.
pub fn quad_tree(min: [f32; 3], max: [f32; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity(QUAD_TREE_BYTES);
    push_node(&mut out, min, max, 0);
    out
}

fn push_node(out: &mut Vec<u8>, min: [f32; 3], max: [f32; 3], depth: u32) {
    let half = [0, 1, 2].map(|k| (max[k] - min[k]) / 2.0);
    let center = [0, 1, 2].map(|k| (max[k] + min[k]) / 2.0);
    let node = QuadNode {
        max,
        min,
        half_size: half,
        center,
    };
    out.extend_from_slice(&node.to_bytes());
    if depth == 5 {
        return;
    }
    let [cx, _, cz] = center;
    for (x0, x1, z0, z1) in [
        (min[0], cx, min[2], cz),
        (cx, max[0], min[2], cz),
        (min[0], cx, cz, max[2]),
        (cx, max[0], cz, max[2]),
    ] {
        push_node(out, [x0, min[1], z0], [x1, max[1], z1], depth + 1);
    }
}
