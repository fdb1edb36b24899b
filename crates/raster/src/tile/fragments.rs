//! Shading a packet of queued samples: interpolating the planes of each
//! lane's triangle, the material and lighting, and writing the survivors.

use super::*;

/// What shading a packet of a group's samples needs.
pub(super) struct Fragments<'a> {
    pub(super) slots: &'a Slots,
    pub(super) mat: &'a Material<'a>,
    pub(super) light: &'a Lighting,
}

impl Fragments<'_> {
    /// Shades the live lanes of `p` and writes the survivors (colour, and
    /// depth unless blended) into the tile.
    #[inline(always)]
    pub(super) fn shade<S: Simd, const LM: bool>(&self, s: S, p: &Packet<S>, buf: &mut TileBuffer) {
        let shaded = self.colour::<S, LM>(s, p);
        self.write(s, p, &shaded, buf);
    }

    /// [`Fragments::shade`] for two packets, both shaded before either is
    /// written, and in step: each packet's chain (planes, divide, texel
    /// addresses, gathers, filter) is long and its links depend on each
    /// other, so the two run side by side — both fetch their texels before
    /// either filters — and one's latency hides behind the other's work.
    /// The writes are a loop over the live lanes, whose exit the branch
    /// predictor misses, and come after both. At a level without
    /// [`Simd::IN_STEP`] the two are coloured one after the other.
    #[inline(always)]
    pub(super) fn shade_pair<S: Simd, const LM: bool>(
        &self,
        s: S,
        p: [&Packet<S>; 2],
        buf: &mut TileBuffer,
    ) {
        let (first, second) = if S::IN_STEP {
            let a = self.inputs(s, p[0]);
            let b = self.inputs(s, p[1]);
            let ta = fetch(s, self.mat, &a.inp);
            let tb = fetch(s, self.mat, &b.inp);
            (
                self.finish::<S, LM>(s, p[0], &a, ta),
                self.finish::<S, LM>(s, p[1], &b, tb),
            )
        } else {
            (self.colour::<S, LM>(s, p[0]), self.colour::<S, LM>(s, p[1]))
        };
        self.write(s, p[0], &first, buf);
        self.write(s, p[1], &second, buf);
    }

    /// The premultiplied colour and depth of the packet's lanes, and the
    /// lanes that survive the alpha test.
    #[inline(always)]
    fn colour<S: Simd, const LM: bool>(&self, s: S, p: &Packet<S>) -> Shaded<S> {
        let at = self.inputs(s, p);
        let taps = fetch(s, self.mat, &at.inp);
        self.finish::<S, LM>(s, p, &at, taps)
    }

    /// The packet's interpolated inputs.
    ///
    /// Attributes are evaluated exactly as a row-by-row walk would:
    /// `(v + dy·row) + dx·column`, so a sample gets the same bits whichever
    /// packet it lands in.
    #[inline(always)]
    fn inputs<S: Simd>(&self, s: S, p: &Packet<S>) -> Interpolated<S> {
        let pl = self.slots;
        let ly0 = p.owners.ints(s, &pl.ly0);
        let lx0 = p.owners.ints(s, &pl.lx0);
        let fr = (p.at.shr::<TILE_SHIFT>() - ly0).to_f32();
        let fo = ((p.at & s.splat_i(TILE as i32 - 1)) - lx0).to_f32();
        let at = Lanes {
            s,
            fr,
            fo,
            owners: p.owners,
        };
        let z = at.plane(pl, P_Z);
        // Perspective correction: attributes were interpolated divided by
        // w, alongside 1/w itself. The floor on 1/w only matters for
        // rounding at the very edge of a triangle.
        let w = s.splat(1.0).div(at.plane(pl, P_INV_W).max(s.splat(1e-30)));
        let inp = Inputs::<S> {
            u: at.plane(pl, P_U) * w,
            v: at.plane(pl, P_V) * w,
            // n/w is parallel to n (w > 0) and shading normalises it.
            n: [at.plane(pl, P_NX), at.plane(pl, P_NY), at.plane(pl, P_NZ)],
        };
        Interpolated { at, z, w, inp }
    }

    /// Shading, the layers (vertex colour, emission, lightmap) and alpha
    /// test, given the packet's inputs and texels.
    #[inline(always)]
    fn finish<S: Simd, const LM: bool>(
        &self,
        s: S,
        p: &Packet<S>,
        i: &Interpolated<S>,
        taps: Option<Taps<S>>,
    ) -> Shaded<S> {
        let extra = if LM { self.extra(s, p, i) } else { Extra::NONE };
        let (mut c, keep) = shade_fetched(
            s,
            self.mat,
            self.light,
            &i.inp,
            self.slots.back,
            p.live,
            taps,
            &extra,
        );
        // A packet the alpha test emptied writes nothing: skip its layer.
        if LM && keep.any() {
            if let Some(view) = &self.mat.lightmap {
                let lu = i.at.plane(self.slots, P_LM) * i.w;
                let lv = i.at.plane(self.slots, P_LM + 1) * i.w;
                let lm = view.bilinear(s, lu, lv, keep);
                apply_lightmap::<S>(&mut c, &lm);
            }
        }
        Shaded { c, z: i.z, keep }
    }

    /// The vertex colour and emission of a layered material's packet.
    #[inline(always)]
    fn extra<S: Simd>(&self, s: S, p: &Packet<S>, i: &Interpolated<S>) -> Extra<S> {
        let tint = if self.mat.colors {
            let (one, zero) = (s.splat(1.0), s.splat(0.0));
            let mut t = [zero; 4];
            for ch in 0..4 {
                // Perspective-correct, and held in 0..=1 against rounding.
                let v = i.at.plane(self.slots, P_COL + ch) * i.w;
                t[ch] = v.min(one).max(zero);
            }
            Some(t)
        } else {
            None
        };
        // A match, not `Option::map`: a closure is compiled without the
        // instruction set of the function it sits in.
        #[allow(clippy::manual_map)]
        let glow = match &self.mat.glow {
            Some(g) => Some(g.at(s, i.inp.u, i.inp.v, p.live)),
            None => None,
        };
        Extra { tint, glow }
    }

    /// Writes the surviving lanes of a shaded packet into the tile.
    #[inline(always)]
    fn write<S: Simd>(&self, s: S, p: &Packet<S>, shaded: &Shaded<S>, buf: &mut TileBuffer) {
        let mut bits = shaded.keep.bits();
        if bits == 0 {
            return;
        }
        let c = &shaded.c;
        let blend = self.mat.mode == Mode::Blend;
        buf.blended |= blend;
        let writes_depth = self.mat.writes_depth();
        let full = bits == (1 << LANES) - 1;
        if (S::SCATTER || S::UNROLLED_WRITES) && !blend && full {
            // Eight samples side by side (a covered block row, or a row's
            // end and the next one's start): whole-vector stores (their
            // rows were marked dirty when the walk reached them). A
            // group's packet may hold several triangles' samples, in any
            // order, so every lane is compared.
            let idx = p.at.to_array();
            let ramp: [i32; LANES] = std::array::from_fn(|i| idx[0] + i as i32);
            if idx == ramp {
                let (first, last) = (sample(idx[0]), sample(idx[LANES - 1]));
                for ch in 0..4 {
                    buf.color[ch][first..=last].copy_from_slice(&c[ch].to_array());
                }
                if writes_depth {
                    buf.depth[first..=last].copy_from_slice(&shaded.z.to_array());
                }
                return;
            }
        }
        if S::SCATTER && !blend {
            // One scatter a plane (lanes in order, as the loop below): at
            // 1024² most packets hold samples of several rows, which the
            // lane-by-lane stores wrote with a load and a store each.
            let idx = p.at & s.splat_i(TILE_AREA as i32 - 1);
            for ch in 0..4 {
                s.scatter(&mut buf.color[ch][..], idx, c[ch], bits);
            }
            if writes_depth {
                s.scatter(&mut buf.depth[..], idx, shaded.z, bits);
            }
            return;
        }
        let inv_a = (s.splat(1.0) - c[3]).to_array();
        let c = [
            c[0].to_array(),
            c[1].to_array(),
            c[2].to_array(),
            c[3].to_array(),
        ];
        let (z, idx) = (shaded.z.to_array(), p.at.to_array());
        if S::UNROLLED_WRITES && !blend && full {
            // Every lane kept (most packets of larger triangles): a fixed
            // count the loop unrolls, with no exit to mispredict.
            for i in 0..LANES {
                let at = sample(idx[i]);
                for ch in 0..4 {
                    buf.color[ch][at] = c[ch][i];
                }
                if writes_depth {
                    buf.depth[at] = z[i];
                }
            }
            return;
        }
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let at = sample(idx[i]);
            for ch in 0..4 {
                let dst = &mut buf.color[ch][at];
                *dst = if blend {
                    c[ch][i] + *dst * inv_a[i]
                } else {
                    c[ch][i]
                };
            }
            if writes_depth {
                buf.depth[at] = z[i];
            }
        }
    }
}

/// The queued tile index `at` as an index of the buffer (its row was
/// marked dirty when its triangle was walked).
#[inline(always)]
fn sample(at: i32) -> usize {
    at as usize & (TILE_AREA - 1)
}

/// A packet's interpolated inputs, and what the lightmap layer still needs.
struct Interpolated<S: Simd> {
    at: Lanes<S>,
    z: S::F,
    w: S::F,
    inp: Inputs<S>,
}

/// A packet's shading result.
struct Shaded<S: Simd> {
    c: [S::F; 4],
    z: S::F,
    keep: S::I,
}

/// The rows and columns of a packet's lanes, to evaluate planes at. A
/// struct with methods rather than a closure: a closure is compiled without
/// its caller's instruction set, so its lane operations would be calls.
struct Lanes<S: Simd> {
    s: S,
    fr: S::F,
    fo: S::F,
    owners: Owners<S>,
}

impl<S: Simd> Lanes<S> {
    /// Plane row `j` (see [`Slots`]): `(v + dy·row) + dx·column`, each
    /// lane with its triangle's coefficients.
    #[inline(always)]
    fn plane(&self, p: &Slots, j: usize) -> S::F {
        let (s, o) = (self.s, &self.owners);
        let (v, dx, dy) = (
            o.floats(s, &p.v[j]),
            o.floats(s, &p.dx[j]),
            o.floats(s, &p.dy[j]),
        );
        (v + dy * self.fr) + dx * self.fo
    }
}
