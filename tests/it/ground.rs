//! The GND ground mesh: corner heights, walls, lightmap atlas and UVs,
//! height queries, placeholders, and malformed indices.

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Vec2, Vec3};
use kiln::internals::formats::gnd::{self, Cube, Gnd, Lightmap, Lightmaps, Surface};
use kiln::internals::map::ground::{placeholder_colour, Ground, GroundChunk};

fn map(name: &str) -> Option<(Gnd, PathBuf)> {
    let p = crate::common::corpus(&format!("ro/hurtsky+RO-Clientresources/data/{name}.gnd"))?;
    Some((gnd::parse_file(&p).unwrap(), p))
}

fn none(
    _: &str,
) -> Option<(
    PathBuf,
    kiln::Result<kiln::internals::formats::texture::Texture>,
)> {
    None
}

/// The file at `path` as the map's lookup hands it to the ground.
/// A finder's answer for `path`: the file decoded as a texture, as a map's
/// loader decodes what it finds.
fn file(
    path: &Path,
) -> Option<(
    PathBuf,
    kiln::Result<kiln::internals::formats::texture::Texture>,
)> {
    let bytes = std::fs::read(path).unwrap();
    Some((
        path.to_path_buf(),
        kiln::internals::formats::texture::decode(&bytes, path),
    ))
}

/// The lightmap rectangle `(u1, v1, u2, v2)` of cell `i` in an atlas of
/// `cols` columns and `w`×`h` texels: texel edges 1 and 7 of the cell.
fn lm_rect(i: u32, cols: u32, w: u32, h: u32) -> (f32, f32, f32, f32) {
    let (cx, cy) = (i % cols, i / cols);
    (
        (cx * 8 + 1) as f32 / w as f32,
        (cy * 8 + 1) as f32 / h as f32,
        (cx * 8 + 7) as f32 / w as f32,
        (cy * 8 + 7) as f32 / h as f32,
    )
}

/// Index of the first vertex of the quad whose four consecutive vertices are
/// exactly `q`, in any chunk: (chunk, first vertex).
fn find_quad(g: &Ground, q: [Vec3; 4]) -> Option<(usize, usize)> {
    for (ci, c) in g.chunks.iter().enumerate() {
        for base in (0..c.positions.len()).step_by(4) {
            if c.positions[base..base + 4] == q {
                return Some((ci, base));
            }
        }
    }
    None
}

fn chunk_of(g: &Ground, x: u32, y: u32) -> usize {
    ((y / 16) * g.width.div_ceil(16) + x / 16) as usize
}

fn kiln(scale: f32, gx: usize, gy: usize, ro_height: f32) -> Vec3 {
    Vec3::new(scale * gx as f32, -ro_height, -(scale * gy as f32))
}

fn top_quad(g: &Gnd, x: usize, y: usize) -> [Vec3; 4] {
    let h = g.cubes[y * g.width as usize + x].heights;
    let s = g.scale;
    [
        kiln(s, x, y, h[0]),
        kiln(s, x + 1, y, h[1]),
        kiln(s, x + 1, y + 1, h[3]),
        kiln(s, x, y + 1, h[2]),
    ]
}

fn front_quad(g: &Gnd, x: usize, y: usize) -> [Vec3; 4] {
    let w = g.width as usize;
    let a = g.cubes[y * w + x].heights;
    let b = g.cubes[(y + 1) * w + x].heights;
    let s = g.scale;
    [
        kiln(s, x, y + 1, a[2]),
        kiln(s, x + 1, y + 1, a[3]),
        kiln(s, x + 1, y + 1, b[1]),
        kiln(s, x, y + 1, b[0]),
    ]
}

fn side_quad(g: &Gnd, x: usize, y: usize) -> [Vec3; 4] {
    let w = g.width as usize;
    let a = g.cubes[y * w + x].heights;
    let b = g.cubes[y * w + x + 1].heights;
    let s = g.scale;
    [
        kiln(s, x + 1, y + 1, a[3]),
        kiln(s, x + 1, y, a[1]),
        kiln(s, x + 1, y, b[0]),
        kiln(s, x + 1, y + 1, b[2]),
    ]
}

fn chunk_uvs(c: &GroundChunk, base: usize) -> (Vec<Vec2>, Vec<Vec2>, Vec<Vec3>) {
    (
        c.uvs[base..base + 4].to_vec(),
        c.lightmap_uvs[base..base + 4].to_vec(),
        c.normals[base..base + 4].to_vec(),
    )
}

#[test]
fn desert_top_corners_are_the_raw_heights() {
    let Some((g, p)) = map("desert") else { return };
    let ground = Ground::build(&g, &p, &none);
    assert_eq!((ground.width, ground.height, ground.scale), (50, 66, 10.0));
    // Raw cube (27, 17): heights [-28.950481, -28.948376, -28.116442, -28.174158].
    let q = [
        Vec3::new(270.0, 28.950481, -170.0),
        Vec3::new(280.0, 28.948376, -170.0),
        Vec3::new(280.0, 28.174158, -180.0),
        Vec3::new(270.0, 28.116442, -180.0),
    ];
    assert_eq!(top_quad(&g, 27, 17), q);
    let (ci, base) = find_quad(&ground, q).expect("top of cube (27, 17)");
    assert_eq!(ci, chunk_of(&ground, 27, 17));
    let c = &ground.chunks[ci];
    // Surface 455: u [0, .25, 0, .25], v [0, 0, .25, .25], lightmap 624;
    // corner order h0 h1 h3 h2.
    let (uv, lm, n) = chunk_uvs(c, base);
    assert_eq!(
        uv,
        [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.25, 0.0),
            Vec2::new(0.25, 0.25),
            Vec2::new(0.0, 0.25)
        ]
    );
    // 1090 lightmaps: 34 columns, 33 rows → 272×264 texels; cell 624 at (12, 18).
    assert_eq!((ground.lightmap_width, ground.lightmap_height), (272, 264));
    let (u1, v1, u2, v2) = (97.0 / 272.0, 145.0 / 264.0, 103.0 / 272.0, 151.0 / 264.0);
    assert_eq!(lm_rect(624, 34, 272, 264), (u1, v1, u2, v2));
    assert_eq!(
        lm,
        [
            Vec2::new(u1, v1),
            Vec2::new(u2, v1),
            Vec2::new(u2, v2),
            Vec2::new(u1, v2)
        ]
    );
    // Nearly flat tile: smooth normals point up.
    assert!(n
        .iter()
        .all(|n| n.y > 0.99 && (n.length() - 1.0).abs() < 1e-5));
    // Both triangles counter-clockwise seen from above.
    let tris: Vec<[u32; 3]> = c
        .parts
        .iter()
        .flat_map(|(_, t)| t.iter().copied())
        .filter(|t| t[0] as usize == base)
        .collect();
    let b = base as u32;
    assert_eq!(tris, [[b, b + 1, b + 2], [b, b + 2, b + 3]]);
    // Texture of surface 455 is GND texture 27.
    let part = c
        .parts
        .iter()
        .find(|(_, t)| t.contains(&[b, b + 1, b + 2]))
        .unwrap();
    assert_eq!(part.0, 27);
}

#[test]
fn fishingboat_walls_join_the_neighbours_heights() {
    let Some((g, p)) = map("fishingboat") else {
        return;
    };
    let ground = Ground::build(&g, &p, &none);
    // Cube (38, 36) stands 83 units above its front and side neighbours.
    let front = [
        Vec3::new(380.0, 83.17976, -370.0),
        Vec3::new(390.0, 83.18375, -370.0),
        Vec3::new(390.0, 1.297945, -370.0),
        Vec3::new(380.0, 1.2897717, -370.0),
    ];
    let side = [
        Vec3::new(390.0, 83.18375, -370.0),
        Vec3::new(390.0, 83.16095, -360.0),
        Vec3::new(390.0, 1.3487041, -360.0),
        Vec3::new(390.0, 1.3643463, -370.0),
    ];
    assert_eq!(front_quad(&g, 38, 36), front);
    assert_eq!(side_quad(&g, 38, 36), side);
    let cols = 31; // 905 lightmaps → 31 columns, 30 rows, 248×240 texels
    assert_eq!((ground.lightmap_width, ground.lightmap_height), (248, 240));

    let (ci, base) = find_quad(&ground, front).expect("front wall");
    assert_eq!(ci, chunk_of(&ground, 38, 36));
    let (uv, lm, n) = chunk_uvs(&ground.chunks[ci], base);
    let s = &g.surfaces[g.cubes[36 * 50 + 38].front as usize];
    assert_eq!(
        uv,
        [
            Vec2::new(s.u[0], s.v[0]),
            Vec2::new(s.u[1], s.v[1]),
            Vec2::new(s.u[3], s.v[3]),
            Vec2::new(s.u[2], s.v[2])
        ]
    );
    let (u1, v1, u2, v2) = lm_rect(s.lightmap as u32, cols, 248, 240);
    assert_eq!(
        lm,
        [
            Vec2::new(u1, v1),
            Vec2::new(u2, v1),
            Vec2::new(u2, v2),
            Vec2::new(u1, v2)
        ]
    );
    // Seen from the lower row y+1, which lies towards −Z.
    assert!(n.iter().all(|n| *n == Vec3::NEG_Z));

    let (ci, base) = find_quad(&ground, side).expect("side wall");
    let (uv, lm, n) = chunk_uvs(&ground.chunks[ci], base);
    let s = &g.surfaces[g.cubes[36 * 50 + 38].side as usize];
    // UV 0 at (x+1, y+1) on the upper edge, as the client maps it.
    assert_eq!(
        uv,
        [
            Vec2::new(s.u[0], s.v[0]),
            Vec2::new(s.u[1], s.v[1]),
            Vec2::new(s.u[3], s.v[3]),
            Vec2::new(s.u[2], s.v[2])
        ]
    );
    let (u1, v1, u2, v2) = lm_rect(s.lightmap as u32, cols, 248, 240);
    assert_eq!(
        lm,
        [
            Vec2::new(u1, v1),
            Vec2::new(u2, v1),
            Vec2::new(u2, v2),
            Vec2::new(u1, v2)
        ]
    );
    assert!(n.iter().all(|n| *n == Vec3::X));

    // The top of cube (38, 36): surface 624, lightmap 904 = cell (5, 29).
    let (ci, base) = find_quad(&ground, top_quad(&g, 38, 36)).unwrap();
    let (uv, lm, _) = chunk_uvs(&ground.chunks[ci], base);
    assert_eq!(
        uv,
        [
            Vec2::new(0.75, 0.25),
            Vec2::new(0.75, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 0.25)
        ]
    );
    let (u1, v1, u2, v2) = (41.0 / 248.0, 233.0 / 240.0, 47.0 / 248.0, 239.0 / 240.0);
    assert_eq!(
        lm,
        [
            Vec2::new(u1, v1),
            Vec2::new(u2, v1),
            Vec2::new(u2, v2),
            Vec2::new(u1, v2)
        ]
    );
}

#[test]
fn every_surface_becomes_exactly_one_quad() {
    // (map, tops, fronts, sides) counted from the raw cubes.
    for (name, tops, fronts, sides) in [
        ("desert", 784, 165, 141),
        ("sm_pri", 64, 0, 0),
        ("poring_c01", 3012, 4, 4),
        ("fishingboat", 784, 211, 192),
    ] {
        let Some((g, p)) = map(name) else { return };
        let ground = Ground::build(&g, &p, &none);
        assert_eq!(
            ground.triangle_count(),
            2 * (tops + fronts + sides),
            "{name}"
        );
        assert!(ground.warnings.is_empty(), "{name}: {:?}", ground.warnings);
        let w = g.width as usize;
        let (mut t, mut f, mut s) = (0, 0, 0);
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        let mut extend = |q: [Vec3; 4]| {
            for p in q {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        };
        for (i, c) in g.cubes.iter().enumerate() {
            let (x, y) = (i % w, i / w);
            if c.top >= 0 {
                extend(top_quad(&g, x, y));
                let (ci, _) = find_quad(&ground, top_quad(&g, x, y))
                    .unwrap_or_else(|| panic!("{name}: top of ({x}, {y})"));
                assert_eq!(ci, chunk_of(&ground, x as u32, y as u32));
                t += 1;
            }
            if c.front >= 0 {
                extend(front_quad(&g, x, y));
                let (ci, _) = find_quad(&ground, front_quad(&g, x, y))
                    .unwrap_or_else(|| panic!("{name}: front of ({x}, {y})"));
                assert_eq!(ci, chunk_of(&ground, x as u32, y as u32));
                f += 1;
            }
            if c.side >= 0 {
                extend(side_quad(&g, x, y));
                let (ci, _) = find_quad(&ground, side_quad(&g, x, y))
                    .unwrap_or_else(|| panic!("{name}: side of ({x}, {y})"));
                assert_eq!(ci, chunk_of(&ground, x as u32, y as u32));
                s += 1;
            }
        }
        assert_eq!((t, f, s), (tops, fronts, sides), "{name}");
        // Every chunk has 4 vertices per quad and indices in range; every
        // triangle of area is counter-clockwise around its normal.
        let (mut wound, mut checked) = (0, 0);
        for c in &ground.chunks {
            assert!(c
                .positions
                .iter()
                .all(|p| p.cmpge(c.min).all() && p.cmple(c.max).all()));
            assert_eq!(c.positions.len(), 2 * c.triangle_count());
            assert_eq!(c.normals.len(), c.positions.len());
            for (tex, tris) in &c.parts {
                assert!(*tex < ground.textures.len());
                for t in tris {
                    let [a, b, d] = t.map(|i| c.positions[i as usize]);
                    let cross = (b - a).cross(d - a);
                    if cross.length() < 1e-3 {
                        continue;
                    }
                    checked += 1;
                    if cross.dot(c.normals[t[0] as usize]) > 0.0 {
                        wound += 1;
                    }
                }
            }
        }
        assert_eq!(
            wound, checked,
            "{name}: triangles wound against their normal"
        );
        assert_eq!(ground.bounds(), (lo, hi), "{name}");
    }
}

#[test]
fn atlas_texels_are_the_gnd_lightmap_bytes() {
    let Some((g, p)) = map("desert") else { return };
    let ground = Ground::build(&g, &p, &none);
    assert_eq!(ground.lightmap.len(), 272 * 264);
    for i in [0usize, 1, 33, 34, 624, 1089] {
        let (cx, cy) = ((i % 34) as u32 * 8, (i / 34) as u32 * 8);
        let lm = &g.lightmaps.data[i];
        for k in 0..64 {
            let c = lm.color[k];
            assert_eq!(
                ground.lightmap_texel(cx + k as u32 % 8, cy + k as u32 / 8),
                Some([c[0], c[1], c[2], lm.shadow[k]]),
                "cell {i} texel {k}"
            );
        }
    }
    // Past the last cell: neutral (no colour, no shadow).
    assert_eq!(ground.lightmap_texel(2 * 8, 32 * 8), Some([0, 0, 0, 255]));
    assert_eq!(ground.lightmap_texel(272, 0), None);
}

#[test]
fn height_at_matches_the_tiles() {
    for name in ["desert", "poring_c01", "fishingboat"] {
        let Some((g, p)) = map(name) else { return };
        let ground = Ground::build(&g, &p, &none);
        let w = g.width as usize;
        for (i, c) in g.cubes.iter().enumerate() {
            let (x, y) = (i % w, i / w);
            let (fx, fz) = (10.0 * x as f32, -10.0 * y as f32);
            let h = c.heights;
            if c.top < 0 {
                assert_eq!(ground.height_at(fx + 5.0, fz - 5.0), None);
                continue;
            }
            // The near corner belongs to this tile exactly.
            assert_eq!(ground.height_at(fx, fz), Some(-h[0]), "{name} ({x}, {y})");
            // Centre: on the h0–h3 diagonal.
            let centre = ground.height_at(fx + 5.0, fz - 5.0).unwrap();
            assert!(
                (centre + (h[0] + h[3]) / 2.0).abs() < 1e-3,
                "{name} ({x}, {y})"
            );
            // The other corners, approached from inside the tile.
            let e = 1e-3;
            for (dx, dz, k) in [
                (10.0 - e, -e, 1),
                (e, -10.0 + e, 2),
                (10.0 - e, -10.0 + e, 3),
            ] {
                let got = ground.height_at(fx + dx, fz + dz).unwrap();
                assert!(
                    (got + h[k]).abs() < 0.02,
                    "{name} ({x}, {y}) corner {k}: {got} vs {}",
                    -h[k]
                );
            }
        }
        assert_eq!(ground.height_at(-0.5, -5.0), None);
        assert_eq!(ground.height_at(5.0, 0.5), None);
        assert_eq!(ground.height_at(10.0 * w as f32 + 0.5, -5.0), None);
        assert_eq!(ground.height_at(5.0, -10.0 * g.height as f32 - 0.5), None);
    }
    // Poring (50, 55) is a flat raised block at RO height −10.
    let Some((g, p)) = map("poring_c01") else {
        return;
    };
    let ground = Ground::build(&g, &p, &none);
    assert_eq!(ground.height_at(505.0, -555.0), Some(10.0));
}

#[test]
fn missing_textures_are_listed_once_and_drawn_flat() {
    let Some((g, p)) = map("desert") else { return };
    let ground = Ground::build(&g, &p, &none);
    assert_eq!(ground.textures.len(), 30);
    // "필드바닥\움발라던전01.bmp" appears at 10 and 14: listed once.
    assert_eq!(g.textures[10], g.textures[14]);
    assert_eq!(ground.missing.len(), 29);
    let mut expected: Vec<String> = Vec::new();
    for t in &g.textures {
        if !expected.contains(t) {
            expected.push(t.clone());
        }
    }
    assert_eq!(ground.missing, expected);
    let mut colours = Vec::new();
    for (slot, name) in ground.textures.iter().zip(&g.textures) {
        assert_eq!(&slot.name, name);
        assert_eq!(slot.path, None);
        let c = placeholder_colour(name);
        assert!(c[..3].iter().all(|v| (72..=167).contains(v)) && c[3] == 255);
        assert!(slot.image.texels.iter().all(|t| *t == c));
        assert_eq!(
            slot.image.alpha,
            kiln::internals::texture::TextureAlpha::Opaque
        );
        if !colours.contains(&c) {
            colours.push(c);
        }
    }
    assert_eq!(colours.len(), 29, "one colour per distinct name");
    assert_eq!(
        ground.textures[10].image.texels,
        ground.textures[14].image.texels
    );
}

#[test]
fn found_textures_are_decoded_and_unreadable_ones_warn() {
    let Some((g, p)) = map("sm_pri") else { return };
    let bmp =
        crate::common::corpus_root().join("ro/Borf+BrowEdit3/data/texture/la_scifi/error_01.bmp");
    let find = |name: &str| -> Option<(
        PathBuf,
        kiln::Result<kiln::internals::formats::texture::Texture>,
    )> {
        if name.ends_with("i_fild04.bmp") {
            file(&bmp)
        } else if name.ends_with("m_br_02.bmp") {
            // Exists but is not an image.
            file(&p)
        } else {
            None
        }
    };
    let ground = Ground::build(&g, &p, &find);
    assert_eq!(ground.textures[0].path.as_deref(), Some(bmp.as_path()));
    let real =
        kiln::internals::formats::texture::decode(&std::fs::read(&bmp).unwrap(), &bmp).unwrap();
    assert_eq!(ground.textures[0].image.texels, real.texels);
    assert_eq!(ground.textures[5].path.as_deref(), Some(p.as_path()));
    assert_eq!(ground.textures[5].image.width, 4);
    // Neither the found nor the unreadable one is "missing".
    assert_eq!(ground.missing.len(), 3);
    assert_eq!(ground.warnings.len(), 1, "{:?}", ground.warnings);
    assert!(ground.warnings[0].contains("m_br_02.bmp"));
}

// ---- synthetic maps ----

fn flat_surface(texture: i16, lightmap: u16) -> Surface {
    Surface {
        u: [0.0, 1.0, 0.0, 1.0],
        v: [0.0, 0.0, 1.0, 1.0],
        texture,
        lightmap,
        bgra: [255; 4],
    }
}

fn synthetic(
    width: i32,
    height: i32,
    cubes: Vec<Cube>,
    surfaces: Vec<Surface>,
    lightmaps: usize,
) -> Gnd {
    let g = Gnd {
        major: 1,
        minor: 7,
        width,
        height,
        scale: 10.0,
        textures: vec!["a.bmp".into(), "b.bmp".into()],
        texture_raw: vec![],
        texture_name_len: 80,
        lightmaps: Lightmaps {
            per_cell: (8, 8, 1),
            data: (0..lightmaps)
                .map(|i| Lightmap {
                    shadow: [i as u8; 64],
                    color: [[i as u8, 1, 2]; 64],
                })
                .collect(),
        },
        surfaces,
        cubes,
        water: None,
        warnings: vec![],
    };
    // Through the writer and back, as a file would arrive.
    gnd::parse(&gnd::write(&g), Path::new("synthetic.gnd")).unwrap()
}

fn cube(heights: [f32; 4], top: i32, front: i32, side: i32) -> Cube {
    Cube {
        heights,
        top,
        front,
        side,
    }
}

#[test]
fn a_tile_without_top_has_no_triangles_and_no_height() {
    let flat = [0.0; 4];
    let g = synthetic(
        3,
        2,
        vec![
            cube(flat, 0, -1, -1),
            cube(flat, -1, -1, -1),
            cube(flat, 0, -1, -1),
            cube(flat, 0, -1, -1),
            cube(flat, 0, -1, -1),
            cube(flat, 0, -1, -1),
        ],
        vec![flat_surface(0, 0)],
        1,
    );
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    assert_eq!(ground.chunks.len(), 1);
    assert_eq!(ground.triangle_count(), 10);
    assert_eq!(ground.height_at(15.0, -5.0), None);
    assert_eq!(ground.height_at(5.0, -5.0), Some(0.0));
    assert_eq!(ground.height_at(15.0, -15.0), Some(0.0));
    assert!(ground.warnings.is_empty());
    assert_eq!(ground.missing, ["a.bmp", "b.bmp"]);
    // Single lightmap: an 8×8 atlas, UVs on texel edges 1 and 7.
    assert_eq!((ground.lightmap_width, ground.lightmap_height), (8, 8));
    let c = &ground.chunks[0];
    assert_eq!(c.lightmap_uvs[0], Vec2::new(0.125, 0.125));
    assert_eq!(c.lightmap_uvs[2], Vec2::new(0.875, 0.875));
    assert_eq!(
        ground.bounds(),
        (Vec3::new(0.0, 0.0, -20.0), Vec3::new(30.0, 0.0, 0.0))
    );
}

#[test]
fn bad_indices_warn_once_per_kind_and_never_panic() {
    let flat = [0.0; 4];
    let g = synthetic(
        4,
        2,
        vec![
            cube(flat, 99, -1, -1), // surface out of range
            cube(flat, 1, -1, -1),  // texture −1
            cube(flat, 2, -1, -1),  // texture 7
            cube(flat, 3, -1, -1),  // lightmap 40: neutral
            cube(flat, 99, -1, 0),  // surface out of range again, side fine
            cube(flat, 3, 0, -1),   // front on the last row: not drawn
            cube(flat, 2, -1, -1),  // texture 7 again
            cube(flat, 0, -1, 0),   // side on the last column: not drawn
        ],
        vec![
            flat_surface(0, 0),
            flat_surface(-1, 0),
            flat_surface(7, 0),
            flat_surface(1, 40),
        ],
        2,
    );
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    assert_eq!(ground.warnings.len(), 3, "{:#?}", ground.warnings);
    // Surfaces start at 26 + 2·80 + 16 + 2·256 + 4 = 718, cubes at 718 + 4·56 = 942.
    assert!(ground.warnings[0].contains("cubes[0].top at byte 958: surface 99"));
    assert!(ground.warnings[0].contains("(and 1 more like it)"));
    assert!(ground.warnings[1].contains("surfaces[1].texture at byte 806: -1"));
    assert!(ground.warnings[1].contains("(and 2 more like it)"));
    assert!(ground.warnings[2].contains("surfaces[3].lightmap at byte 920: 40"));
    assert!(ground
        .warnings
        .iter()
        .all(|w| w.starts_with("synthetic.gnd: ")));
    // Drawn: tops of cubes 3, 5, 7 and the side of cube 4.
    assert_eq!(ground.triangle_count(), 8);
    // Two real cells + one neutral: 2 columns, 2 rows.
    assert_eq!((ground.lightmap_width, ground.lightmap_height), (16, 16));
    assert_eq!(ground.lightmap_texel(0, 0), Some([0, 1, 2, 0]));
    assert_eq!(ground.lightmap_texel(8, 0), Some([1, 1, 2, 1]));
    assert_eq!(ground.lightmap_texel(0, 8), Some([0, 0, 0, 255]));
    // Cube 3's top samples the neutral cell 2 at (0, 1).
    let c = &ground.chunks[0];
    let base = c
        .positions
        .chunks(4)
        .position(|q| q[0] == Vec3::new(30.0, 0.0, 0.0))
        .unwrap()
        * 4;
    assert_eq!(c.lightmap_uvs[base], Vec2::new(1.0 / 16.0, 9.0 / 16.0));
    assert_eq!(c.parts.iter().map(|(t, _)| *t).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(ground.height_at(5.0, -5.0), None);
    assert_eq!(ground.height_at(35.0, -5.0), Some(0.0));
}

#[test]
fn a_huge_empty_map_allocates_nothing() {
    let g = synthetic(2_000_000_000, 0, vec![], vec![], 0);
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    assert_eq!((ground.width, ground.height), (2_000_000_000, 0));
    assert!(ground.chunks.is_empty());
    assert_eq!(ground.triangle_count(), 0);
    assert_eq!(ground.height_at(5.0, -5.0), None);
    assert_eq!((ground.lightmap_width, ground.lightmap_height), (8, 8));
    let g = synthetic(0, 2_000_000_000, vec![], vec![], 0);
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    assert!(ground.chunks.is_empty());
    assert_eq!(ground.height_at(0.0, -5.0), None);
}

#[test]
fn corner_normals_average_the_neighbouring_tops() {
    // Tile 0 flat, tile 1 rising 10 towards +x (45°).
    let g = synthetic(
        2,
        1,
        vec![
            cube([0.0; 4], 0, -1, -1),
            cube([0.0, -10.0, 0.0, -10.0], 0, -1, -1),
        ],
        vec![flat_surface(0, 0)],
        1,
    );
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    let c = &ground.chunks[0];
    let slope = Vec3::new(-1.0, 1.0, 0.0).normalize();
    let shared = (Vec3::Y + slope).normalize();
    assert_eq!(c.normals[0], Vec3::Y);
    assert!(c.normals[1].abs_diff_eq(shared, 1e-6));
    assert!(c.normals[4].abs_diff_eq(shared, 1e-6));
    assert!(c.normals[5].abs_diff_eq(slope, 1e-6));
    assert_eq!(ground.height_at(15.0, -5.0), Some(5.0));
    assert_eq!(
        ground.bounds(),
        (Vec3::new(0.0, 0.0, -10.0), Vec3::new(20.0, 10.0, 0.0))
    );
}

#[test]
fn walls_face_the_lower_side() {
    // Cube 0 low, its front neighbour (row 1) and side neighbour raised by 5.
    let low = [0.0; 4];
    let high = [-5.0; 4];
    let g = synthetic(
        2,
        2,
        vec![
            cube(low, 0, 0, 0),
            cube(high, 0, -1, -1),
            cube(high, 0, -1, -1),
            cube(high, 0, -1, -1),
        ],
        vec![flat_surface(0, 0)],
        1,
    );
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    assert_eq!(ground.triangle_count(), 12);
    let c = &ground.chunks[0];
    // Vertices: top 0 (0..4), front (4..8), side (8..12).
    assert_eq!(c.normals[4], Vec3::Z);
    assert_eq!(c.normals[8], Vec3::NEG_X);
    for t in c.parts.iter().flat_map(|(_, t)| t) {
        let [a, b, d] = t.map(|i| c.positions[i as usize]);
        assert!((b - a).cross(d - a).dot(c.normals[t[0] as usize]) > 0.0);
    }
}

#[test]
fn large_map_builds_in_chunks() {
    let (w, h) = (300usize, 300usize);
    let mut cubes = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            // Gentle hills, and a wall every 7th tile.
            let base = -((x as f32 * 0.3).sin() + (y as f32 * 0.2).cos()) * 8.0;
            let wall = if (x + y) % 7 == 0 { 0 } else { -1 };
            let top = ((y * w + x) % 4096) as i32;
            cubes.push(cube([base, base - 1.0, base + 1.0, base], top, wall, wall));
        }
    }
    let surfaces: Vec<Surface> = (0..4096u16)
        .map(|i| flat_surface((i % 2) as i16, i))
        .collect();
    let g = synthetic(w as i32, h as i32, cubes, surfaces, 4096);
    let start = Instant::now();
    let ground = Ground::build(&g, Path::new("synthetic.gnd"), &none);
    let took = start.elapsed();
    let walls = (0..w * h)
        .filter(|i| (i % w + i / w) % 7 == 0)
        .map(|i| (i / w + 1 < h) as usize + (i % w + 1 < w) as usize)
        .sum::<usize>();
    assert_eq!(ground.triangle_count(), 2 * (w * h + walls));
    assert_eq!(ground.chunks.len(), 19 * 19);
    // Chunk 1 covers tiles 16..32 of row 0..16; the last column of chunks is 12 wide.
    let c1 = &ground.chunks[1];
    assert!(c1
        .positions
        .iter()
        .all(|p| (160.0..=320.0).contains(&p.x) && (-160.0..=0.0).contains(&p.z)));
    assert_eq!(ground.chunks[18].positions.len() % 4, 0);
    assert!(ground.chunks[18].min.x >= 2880.0);
    let verts: usize = ground.chunks.iter().map(|c| c.positions.len()).sum();
    let bytes =
        verts * (12 + 12 + 8 + 8) + ground.triangle_count() * 12 + ground.lightmap.len() * 4;
    println!(
        "300×300 ground: built in {took:?}; {verts} vertices, {} triangles, {} chunks, ~{:.1} MiB of mesh + atlas ({}×{})",
        ground.triangle_count(),
        ground.chunks.len(),
        bytes as f64 / (1024.0 * 1024.0),
        ground.lightmap_width,
        ground.lightmap_height
    );
}
