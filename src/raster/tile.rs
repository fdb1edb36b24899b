//! Drawing one set-up triangle into one tile's sample buffer.
//!
//! Edges are first tested against the part of the triangle's bounding box
//! inside the tile: an edge with no sample on its inner side rejects the whole
//! triangle, an edge with every sample inside drops out of the lane test.
//! The rest runs in rows of 8×1 blocks: three i32 adds and a sign test give
//! coverage, then depth, then shading only for blocks with live lanes.

use super::framebuffer::{TileBuffer, TILE};
use super::lanes::{F32x8, I32x8, LANES};
use super::setup::{Tri, PLANES, P_INV_W, P_NX, P_NY, P_NZ, P_U, P_V, P_Z};
use super::shade::{apply_lightmap, shade, Inputs, Lighting, Material, Mode};

/// The samples `x..x + w`, `y..y + h` a tile covers (clipped to the target).
#[derive(Debug, Clone, Copy)]
pub struct TileRect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

/// Sample bounds shared by the triangle's box and the tile; `None` if empty.
#[inline]
fn overlap(tri: &Tri, r: &TileRect) -> Option<(i32, i32, i32, i32)> {
    let x0 = tri.min_x.max(r.x);
    let y0 = tri.min_y.max(r.y);
    let x1 = tri.max_x.min(r.x + r.w - 1);
    let y1 = tri.max_y.min(r.y + r.h - 1);
    (x0 <= x1 && y0 <= y1).then_some((x0, y0, x1, y1))
}

/// Per edge: `None` when no sample of the box is inside it, otherwise whether
/// every sample is.
#[inline]
fn classify(tri: &Tri, x0: i32, y0: i32, x1: i32, y1: i32) -> Option<[bool; 3]> {
    let mut all_in = [false; 3];
    let (dw, dh) = ((x1 - x0) as i64, (y1 - y0) as i64);
    for (k, e) in tri.edges.iter().enumerate() {
        let c = e.at(x0 as i64, y0 as i64);
        let (sa, sb) = (e.a as i64 * dw, e.b as i64 * dh);
        if c + sa.max(0) + sb.max(0) < 0 {
            return None;
        }
        all_in[k] = c + sa.min(0) + sb.min(0) >= 0;
    }
    Some(all_in)
}

/// Whether the triangle may cover a sample of the tile (used when binning).
pub fn touches(tri: &Tri, r: &TileRect) -> bool {
    match overlap(tri, r) {
        Some((x0, y0, x1, y1)) => classify(tri, x0, y0, x1, y1).is_some(),
        None => false,
    }
}

pub fn draw(tri: &Tri, mat: &Material, light: &Lighting, r: &TileRect, buf: &mut TileBuffer) {
    // Two instances, so batches without a lightmap run the loop they ran
    // before the layer existed.
    if mat.lightmap.is_some() {
        draw_lanes::<true>(tri, mat, light, r, buf)
    } else {
        draw_lanes::<false>(tri, mat, light, r, buf)
    }
}

#[inline(always)]
fn draw_lanes<const LM: bool>(
    tri: &Tri,
    mat: &Material,
    light: &Lighting,
    r: &TileRect,
    buf: &mut TileBuffer,
) {
    let Some((x0, y0, x1, y1)) = overlap(tri, r) else {
        return;
    };
    let Some(all_in) = classify(tri, x0, y0, x1, y1) else {
        return;
    };
    // Edge lanes relative to (x0, y0). A partially covering edge changes sign
    // inside the box, so its value there is bounded by the box's span and fits
    // i32 (see the guard band); the clamp only protects that invariant.
    let mut ea = [0i32; 3];
    let mut eb = [0i32; 3];
    let mut ec = [0i32; 3];
    for k in 0..3 {
        if !all_in[k] {
            let e = &tri.edges[k];
            ea[k] = e.a;
            eb[k] = e.b;
            ec[k] = e.at(x0 as i64, y0 as i64).clamp(-(1 << 30), 1 << 30) as i32;
        }
    }
    let mut pv = [0f32; PLANES];
    let mut pdx = [0f32; PLANES];
    let mut pdy = [0f32; PLANES];
    let (rx, ry) = ((x0 - tri.min_x) as f32, (y0 - tri.min_y) as f32);
    for (j, p) in tri.planes.iter().enumerate() {
        pv[j] = p.at(rx, ry);
        pdx[j] = p.dx;
        pdy[j] = p.dy;
    }
    let mut lmv = [0f32; 2];
    let mut lmdx = [0f32; 2];
    let mut lmdy = [0f32; 2];
    if LM {
        for (j, p) in tri.lm.iter().enumerate() {
            lmv[j] = p.at(rx, ry);
            lmdx[j] = p.dx;
            lmdy[j] = p.dy;
        }
    }

    let lx0 = x0 - r.x;
    let lx1 = x1 - r.x;
    let span = I32x8::splat(lx1 - lx0);
    let first_block = lx0 & !(LANES as i32 - 1);
    let writes_depth = mat.writes_depth();
    let blend = mat.mode == Mode::Blend;

    // Lane values step by a constant per block, so the inner loop adds
    // instead of multiplying (i32 lane multiplies are slow on baseline SSE2).
    let ramp: [I32x8; 3] = std::array::from_fn(|k| I32x8::ramp() * I32x8::splat(ea[k]));
    let step: [I32x8; 3] = std::array::from_fn(|k| I32x8::splat(ea[k].wrapping_mul(LANES as i32)));
    let lead = first_block - lx0;
    for row in 0..=(y1 - y0) {
        let ly = (y0 - r.y + row) as usize;
        let mut e: [I32x8; 3] = std::array::from_fn(|k| {
            let start = ec[k]
                .wrapping_add(eb[k].wrapping_mul(row))
                .wrapping_add(ea[k].wrapping_mul(lead));
            I32x8::splat(start) + ramp[k]
        });
        let fr = row as f32;
        let p_row: [f32; PLANES] = std::array::from_fn(|j| pv[j] + pdy[j] * fr);
        let lm_row: [f32; 2] = std::array::from_fn(|j| lmv[j] + lmdy[j] * fr);
        let mut bx = first_block;
        let mut off = I32x8::splat(lead) + I32x8::ramp();
        while bx <= lx1 {
            let cols = off.non_negative() & (span - off).non_negative();
            let mut m = (e[0] | e[1] | e[2]).non_negative() & cols;
            let cur = off;
            for k in 0..3 {
                e[k] = e[k] + step[k];
            }
            off = off + I32x8::splat(LANES as i32);
            let idx = ly * TILE + bx as usize;
            bx += LANES as i32;
            if !m.any() {
                continue;
            }
            let fo = cur.to_f32();
            let at = |j: usize| F32x8::splat(p_row[j]) + F32x8::splat(pdx[j]) * fo;
            let z = at(P_Z);
            let depth = F32x8::load(&buf.depth[idx..]);
            m = m & z.lt(depth);
            if !m.any() {
                continue;
            }
            // Perspective correction: attributes were interpolated divided by
            // w, alongside 1/w itself. The floor on 1/w only matters for
            // rounding at the very edge of a triangle.
            let w = F32x8::splat(1.0).div(at(P_INV_W).max(F32x8::splat(1e-30)));
            let inp = Inputs {
                u: at(P_U) * w,
                v: at(P_V) * w,
                // n/w is parallel to n (w > 0) and shading normalises it.
                n: [at(P_NX), at(P_NY), at(P_NZ)],
            };
            let (mut c, keep) = shade(mat, light, &inp, tri.back, m);
            if !keep.any() {
                continue;
            }
            if LM {
                if let Some(view) = &mat.lightmap {
                    let lm_at = |j: usize| F32x8::splat(lm_row[j]) + F32x8::splat(lmdx[j]) * fo;
                    let s = view.bilinear(lm_at(0) * w, lm_at(1) * w, keep);
                    apply_lightmap(&mut c, &s);
                }
            }
            buf.dirty |= 1 << ly;
            if blend {
                let inv_a = F32x8::splat(1.0) - c[3];
                for ch in 0..4 {
                    let dst = F32x8::load(&buf.color[ch][idx..]);
                    (c[ch] + dst * inv_a)
                        .select(dst, keep)
                        .store(&mut buf.color[ch][idx..]);
                }
            } else {
                for ch in 0..4 {
                    let dst = F32x8::load(&buf.color[ch][idx..]);
                    c[ch].select(dst, keep).store(&mut buf.color[ch][idx..]);
                }
            }
            if writes_depth {
                z.select(depth, keep).store(&mut buf.depth[idx..]);
            }
        }
    }
}
