//! kiln's own sample map, written with kiln's RSW and GND writers: rolling
//! ground with a raised stone plateau (walls), a sand path, lightmaps with a
//! soft shadow and a warm glow, the sample windmill and beacons standing on
//! the ground, and one model that does not exist (drawn as a placeholder).

use crate::formats::gnd::{Cube, Gnd, Lightmap, Lightmaps, Surface};
use crate::formats::rsw::{FixedName, Layout, Light, ModelInstance, Object, Rsw, Water};
use crate::scene::geometry::top_height;

/// Ground width of the sample map, in tiles.
pub const WIDTH: i32 = 24;
/// Ground height of the sample map, in tiles.
pub const HEIGHT: i32 = 24;
/// World units per tile (the client's 10).
pub const SCALE: f32 = 10.0;
/// Plateau tiles: columns 15..20, rows 3..8, raised by this many units.
pub const PLATEAU: (i32, i32, i32, i32) = (15, 3, 20, 8);
/// Height of the plateau above the ground around it.
pub const PLATEAU_RISE: f32 = 18.0;
/// The path runs along these rows.
pub const PATH_ROWS: (i32, i32) = (11, 13);

/// The rolling ground's height (up) at a tile corner.
fn rolling(x: i32, y: i32) -> f32 {
    let (fx, fy) = (x as f32, y as f32);
    4.0 * (fx * 0.35).sin() * (fy * 0.28).cos() + 0.25 * fx
}

fn plateau_top() -> f32 {
    let (px0, py0, px1, py1) = PLATEAU;
    let mut top = f32::MIN;
    for y in py0..=py1 {
        for x in px0..=px1 {
            top = top.max(rolling(x, y));
        }
    }
    top + PLATEAU_RISE
}

fn on_plateau_tile(x: i32, y: i32) -> bool {
    let (px0, py0, px1, py1) = PLATEAU;
    (px0..px1).contains(&x) && (py0..py1).contains(&y)
}

/// Heights of tile (x, y) in GND order (bottom-left, bottom-right, top-left,
/// top-right; RO is Y down, so stored negated). Tiles around the plateau keep
/// the rolling ground, so the plateau's edges become walls.
fn tile_heights(x: i32, y: i32) -> [f32; 4] {
    let h = |cx: i32, cy: i32| {
        if on_plateau_tile(x, y) {
            plateau_top()
        } else {
            rolling(cx, cy)
        }
    };
    [-h(x, y), -h(x + 1, y), -h(x, y + 1), -h(x + 1, y + 1)]
}

/// Ground height (up) at a point given in tiles, on the drawn surface: the
/// two triangles of a tile split on its bottom-left–top-right diagonal.
pub fn height_at_tiles(tx: f32, ty: f32) -> f32 {
    let (x, y) = (tx.floor() as i32, ty.floor() as i32);
    let c = tile_heights(x, y).map(|v| -v);
    top_height(c, tx - x as f32, ty - y as f32)
}

/// Lightmap value at a point in tiles: (shadow 0..255, additive colour).
fn light_at(tx: f32, ty: f32) -> (u8, [u8; 3]) {
    // Soft shadow north-east of the plateau (the sun is in the south-west).
    let (px0, py0, px1, py1) = PLATEAU;
    let dx = (tx - (px1 as f32 + 1.5)).max((px0 as f32) - tx).max(0.0);
    let dy = (ty - (py1 as f32 + 1.5)).max((py0 as f32) - ty).max(0.0);
    let d = (dx * dx + dy * dy).sqrt();
    let in_lee = tx > (px0 as f32 + 1.0) && ty > (py0 as f32 + 1.0);
    let shadow = if in_lee && !(on_plateau_tile(tx as i32, ty as i32)) {
        (110.0 + 145.0 * (d / 2.5).min(1.0)) as u8
    } else {
        255
    };
    // A warm glow around the middle beacon.
    let (gx, gy) = (11.5f32, 16.5f32);
    let g = (1.0 - ((tx - gx).powi(2) + (ty - gy).powi(2)).sqrt() / 3.5).max(0.0);
    let glow = [(g * 90.0) as u8, (g * 45.0) as u8, (g * 10.0) as u8];
    (shadow, glow)
}

/// The sample map's ground: rolling grass, a sandy path, the walled
/// plateau, lightmaps with shadow and glow.
pub fn village_gnd() -> Gnd {
    let textures = vec![
        "kiln\\grass.bmp".to_string(),
        "kiln\\sand.bmp".to_string(),
        "kiln\\stone.bmp".to_string(),
    ];
    let mut lightmaps = Vec::new();
    let mut surfaces = Vec::new();
    let mut cubes = Vec::new();
    // One lightmap per surface; texel (i, j) of the 8×8 sits at tile
    // fraction ((i − 0.5) / 6, (j − 0.5) / 6), so the 1-texel border holds
    // the neighbours' values and filtering runs on across tiles.
    let lightmap_for = |x: i32, y: i32| -> Lightmap {
        let mut shadow = [0u8; 64];
        let mut color = [[0u8; 3]; 64];
        for j in 0..8 {
            for i in 0..8 {
                let tx = x as f32 + (i as f32 - 0.5) / 6.0;
                let ty = y as f32 + (j as f32 - 0.5) / 6.0;
                let (s, c) = light_at(tx, ty);
                shadow[j * 8 + i] = s;
                color[j * 8 + i] = c;
            }
        }
        Lightmap { shadow, color }
    };
    let full_uv = |tile_u: f32, tile_v: f32, n: f32| -> ([f32; 4], [f32; 4]) {
        // Each texture repeats every `n` tiles: this tile's quarter of it.
        let (u0, v0) = (tile_u / n, tile_v / n);
        let d = 1.0 / n;
        ([u0, u0 + d, u0, u0 + d], [v0 + d, v0 + d, v0, v0])
    };
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let heights = tile_heights(x, y);
            let texture: i16 = if on_plateau_tile(x, y) {
                2
            } else if (PATH_ROWS.0..PATH_ROWS.1).contains(&y) {
                1
            } else {
                0
            };
            let (u, v) = full_uv((x % 4) as f32, (y % 4) as f32, 4.0);
            let top = surfaces.len() as i32;
            surfaces.push(Surface {
                u,
                v,
                texture,
                lightmap: lightmaps.len() as u16,
                bgra: [255, 255, 255, 255],
            });
            lightmaps.push(lightmap_for(x, y));
            // Walls where the next row or column does not meet this tile.
            let wall = |surfaces: &mut Vec<Surface>, lightmaps: &mut Vec<Lightmap>| {
                let s = surfaces.len() as i32;
                surfaces.push(Surface {
                    u: [0.0, 1.0, 0.0, 1.0],
                    v: [1.0, 1.0, 0.0, 0.0],
                    texture: 2,
                    lightmap: lightmaps.len() as u16,
                    bgra: [255, 255, 255, 255],
                });
                lightmaps.push(Lightmap {
                    shadow: [200; 64],
                    color: [[0; 3]; 64],
                });
                s
            };
            let front = if y + 1 < HEIGHT {
                let next = tile_heights(x, y + 1);
                if (heights[2] - next[0]).abs() > 0.01 || (heights[3] - next[1]).abs() > 0.01 {
                    wall(&mut surfaces, &mut lightmaps)
                } else {
                    -1
                }
            } else {
                -1
            };
            let side = if x + 1 < WIDTH {
                let next = tile_heights(x + 1, y);
                if (heights[1] - next[0]).abs() > 0.01 || (heights[3] - next[2]).abs() > 0.01 {
                    wall(&mut surfaces, &mut lightmaps)
                } else {
                    -1
                }
            } else {
                -1
            };
            cubes.push(Cube {
                heights,
                top,
                front,
                side,
            });
        }
    }
    gnd17(WIDTH, HEIGHT, textures, lightmaps, surfaces, cubes)
}

/// A GND 1.7 (no water planes) with 80-byte texture names and 8×8 lightmaps.
fn gnd17(
    width: i32,
    height: i32,
    textures: Vec<String>,
    lightmaps: Vec<Lightmap>,
    surfaces: Vec<Surface>,
    cubes: Vec<Cube>,
) -> Gnd {
    Gnd {
        major: 1,
        minor: 7,
        width,
        height,
        scale: SCALE,
        texture_raw: textures
            .iter()
            .map(|t| {
                let mut r = t.as_bytes().to_vec();
                r.resize(80, 0);
                r
            })
            .collect(),
        textures,
        texture_name_len: 80,
        lightmaps: Lightmaps {
            per_cell: (8, 8, 1),
            data: lightmaps,
        },
        surfaces,
        cubes,
        water: None,
        warnings: Vec::new(),
    }
}

/// An instance standing on the ground at tile coordinates (tx, ty).
fn instance(name: &str, file: &str, tx: f32, ty: f32, yaw: f32, scale: f32) -> Object {
    let at = Placement {
        tiles: (tx, ty),
        up: height_at_tiles(tx, ty),
        map: (WIDTH, HEIGHT),
        yaw,
        scale,
        speed: 1.0,
    };
    at.instance(name, file)
}

/// Where and how an instance stands, in tiles of a `map`-sized ground.
struct Placement {
    tiles: (f32, f32),
    /// Ground height (up) under it.
    up: f32,
    map: (i32, i32),
    yaw: f32,
    scale: f32,
    speed: f32,
}

impl Placement {
    /// The RSW model object: positions are relative to the map's centre,
    /// heights RO (Y down).
    fn instance(&self, name: &str, file: &str) -> Object {
        let ((tx, ty), (w, h)) = (self.tiles, self.map);
        Object::Model(ModelInstance {
            name: Some(FixedName::new(name, 40)),
            anim_type: 2,
            anim_speed: self.speed,
            block_type: 0,
            flag: None,
            extra: None,
            file: FixedName::new(file, 80),
            node: FixedName::new("", 80),
            position: [
                tx * SCALE - SCALE * w as f32 / 2.0,
                -self.up,
                ty * SCALE - SCALE * h as f32 / 2.0,
            ],
            rotation: [0.0, self.yaw, 0.0],
            scale: [self.scale; 3],
        })
    }
}

/// Where the sample map's instances stand, in tiles: (name, file, x, y, yaw, scale).
pub const INSTANCES: [(&str, &str, f32, f32, f32, f32); 6] = [
    ("windmill", "kiln\\windmill.rsm2", 6.5, 17.5, 30.0, 1.0),
    ("beacon west", "kiln\\beacon.rsm", 4.5, 9.0, 0.0, 1.0),
    ("beacon middle", "kiln\\beacon.rsm", 11.5, 16.5, 45.0, 1.5),
    ("beacon east", "kiln\\beacon.rsm", 21.0, 14.0, 0.0, 1.0),
    ("hut", "kiln\\hut.rsm", 17.5, 5.5, 20.0, 1.0),
    ("well", "kiln\\well.rsm", 9.0, 5.0, 0.0, 1.0),
];

/// The sample map's scene: the instances of [`INSTANCES`] on the ground,
/// water, the sun.
pub fn village_rsw() -> Rsw {
    let objects = INSTANCES
        .iter()
        .map(|&(n, f, x, y, yaw, s)| instance(n, f, x, y, yaw, s))
        .collect();
    Rsw {
        major: 1,
        minor: 9,
        build: None,
        render_flag: None,
        release: None,
        ini: FixedName::new("", 40),
        gnd: FixedName::new("kiln_village.gnd", 40),
        gat: Some(FixedName::new("kiln_village.gat", 40)),
        src: FixedName::new("", 40),
        water: Some(Water {
            level: 100.0,
            water_type: Some(0),
            wave_height: Some(1.0),
            wave_speed: Some(2.0),
            wave_pitch: Some(50.0),
            anim_speed: Some(3),
        }),
        light: Some(Light {
            longitude: 225,
            latitude: 50,
            diffuse: [1.0, 0.96, 0.9],
            ambient: [0.35, 0.35, 0.4],
            shadow_opacity: Some(0.5),
        }),
        bounds: Some([-120, 120, -120, 120]),
        extra_list: None,
        objects,
        quad_tree: None,
        trailing: Vec::new(),
        layout: Layout::expected(1, 9, None),
        warnings: Vec::new(),
    }
}

/// 24-bit BMP ground textures: grass, sand, and the stone of the plateau.
pub fn grass_texture() -> Vec<u8> {
    noise_texture([70, 130, 55], [55, 105, 45], 11)
}

/// The path's sand texture, a 24-bit BMP.
pub fn sand_texture() -> Vec<u8> {
    noise_texture([205, 180, 130], [180, 155, 110], 7)
}

fn noise_texture(a: [u8; 3], b: [u8; 3], seed: u32) -> Vec<u8> {
    let n = 64usize;
    let mut px = vec![[0u8; 3]; n * n];
    for y in 0..n {
        for x in 0..n {
            // A small integer hash: deterministic speckle without a RNG.
            let mut h =
                (x as u32).wrapping_mul(374761393) ^ (y as u32).wrapping_mul(668265263) ^ seed;
            h = (h ^ (h >> 13)).wrapping_mul(1274126177);
            px[y * n + x] = if h.is_multiple_of(3) { b } else { a };
        }
    }
    crate::formats::texture::encode_bmp24(n as u32, n as u32, &px)
}

/// A large synthetic map for benchmarks: `width × height` tiles of rolling
/// ground in the sample textures, one lightmap per tile, and `instances`
/// models spread over it by an integer hash: mostly beacons, every tenth a
/// windmill and every seventh a missing model (drawn as a placeholder).
///
/// A surface names its lightmap with a u16, so past 65,536 tiles the
/// lightmaps repeat on a 256×256-tile pattern: the atlas is then as large as
/// the GND format allows.
pub fn big_map(width: i32, height: i32, instances: usize) -> (Rsw, Gnd) {
    let (width, height) = (width.max(1), height.max(1));
    let corner = |x: i32, y: i32| -> f32 {
        let (fx, fy) = (x as f32, y as f32);
        6.0 * (fx * 0.11).sin() * (fy * 0.09).cos() + 3.0 * (fx * 0.37 + fy * 0.23).sin()
    };
    let heights = |x: i32, y: i32| {
        [
            -corner(x, y),
            -corner(x + 1, y),
            -corner(x, y + 1),
            -corner(x + 1, y + 1),
        ]
    };
    let tiles = width as usize * height as usize;
    let lightmap_count = tiles.min(65536);
    let lightmap_index = |x: i32, y: i32| -> usize {
        if tiles <= 65536 {
            (y * width + x) as usize
        } else {
            (y % 256 * 256 + x % 256) as usize
        }
    };
    let mut lightmaps = vec![
        Lightmap {
            shadow: [255; 64],
            color: [[0; 3]; 64],
        };
        lightmap_count
    ];
    let mut filled = vec![false; lightmap_count];
    let mut surfaces = Vec::with_capacity(tiles);
    let mut cubes = Vec::with_capacity(tiles);
    for y in 0..height {
        for x in 0..width {
            let li = lightmap_index(x, y);
            if !filled[li] {
                filled[li] = true;
                let lm = &mut lightmaps[li];
                for j in 0..8 {
                    for i in 0..8 {
                        let tx = x as f32 + (i as f32 - 0.5) / 6.0;
                        let ty = y as f32 + (j as f32 - 0.5) / 6.0;
                        // Shade the slopes facing away from a south-west sun.
                        let s = 200.0 + 55.0 * (tx * 0.11).cos() * (ty * 0.09).sin();
                        lm.shadow[j * 8 + i] = s.clamp(0.0, 255.0) as u8;
                        let g = ((tx * 0.05).sin() * (ty * 0.07).cos()).max(0.0);
                        lm.color[j * 8 + i] = [(g * 60.0) as u8, (g * 30.0) as u8, 0];
                    }
                }
            }
            // Sand bands and stone patches on the grass.
            let texture: i16 = if (y / 8) % 5 == 2 {
                1
            } else if ((x / 12) + (y / 12)) % 7 == 3 {
                2
            } else {
                0
            };
            let (u0, v0) = ((x % 4) as f32 / 4.0, (y % 4) as f32 / 4.0);
            let d = 0.25;
            cubes.push(Cube {
                heights: heights(x, y),
                top: surfaces.len() as i32,
                front: -1,
                side: -1,
            });
            surfaces.push(Surface {
                u: [u0, u0 + d, u0, u0 + d],
                v: [v0 + d, v0 + d, v0, v0],
                texture,
                lightmap: li as u16,
                bgra: [255, 255, 255, 255],
            });
        }
    }
    let textures = vec![
        "kiln\\grass.bmp".to_string(),
        "kiln\\sand.bmp".to_string(),
        "kiln\\stone.bmp".to_string(),
    ];
    let gnd = gnd17(width, height, textures, lightmaps, surfaces, cubes);

    let height_at = |tx: f32, ty: f32| -> f32 {
        let (x, y) = (tx.floor() as i32, ty.floor() as i32);
        top_height(heights(x, y).map(|v| -v), tx - x as f32, ty - y as f32)
    };
    let hash = |k: u32, salt: u32| -> u32 {
        let mut h = k.wrapping_mul(0x9E37_79B9) ^ salt.wrapping_mul(0x85EB_CA6B);
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^ (h >> 12)
    };
    let objects = (0..instances as u32)
        .map(|k| {
            let tx = 0.5 + (hash(k, 1) % 10_000) as f32 / 10_000.0 * (width as f32 - 1.0);
            let ty = 0.5 + (hash(k, 2) % 10_000) as f32 / 10_000.0 * (height as f32 - 1.0);
            let yaw = (hash(k, 3) % 360) as f32;
            let (name, file, scale) = if k % 7 == 3 {
                ("missing", format!("kiln\\missing_{}.rsm", k % 5), 1.0)
            } else if k % 10 == 0 {
                ("windmill", "kiln\\windmill.rsm2".to_string(), 1.0)
            } else {
                ("beacon", "kiln\\beacon.rsm".to_string(), 1.0)
            };
            let at = Placement {
                tiles: (tx, ty),
                up: height_at(tx, ty),
                map: (width, height),
                yaw,
                scale,
                speed: 0.5 + (k % 4) as f32 * 0.25,
            };
            at.instance(&format!("{name} {k}"), &file)
        })
        .collect();
    let half_w = (SCALE * width as f32 / 2.0) as i32;
    let half_h = (SCALE * height as f32 / 2.0) as i32;
    let mut rsw = village_rsw();
    rsw.gnd = FixedName::new("big.gnd", 40);
    rsw.gat = Some(FixedName::new("big.gat", 40));
    rsw.water = None;
    rsw.bounds = Some([-half_w, half_w, -half_h, half_h]);
    rsw.objects = objects;
    (rsw, gnd)
}
