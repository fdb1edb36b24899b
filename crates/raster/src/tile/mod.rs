//! Drawing one set-up triangle into one tile's sample buffer.
//!
//! Edges are first tested against the part of the triangle's bounding box
//! inside the tile: an edge with no sample on its inner side rejects the whole
//! triangle, an edge with every sample inside drops out of the lane test.
//! The rest runs in rows of 8×1 blocks (windows of eight columns placed to
//! cover the box with the fewest): three i32 adds and a sign test give
//! coverage, then depth; the surviving samples are queued, and shaded
//! eight at a time, in packets that may mix the samples of consecutive
//! triangles of one material (a group, see [`Queue`]).

use super::framebuffer::{TileBuffer, TILE, TILE_AREA};
use super::setup::{
    Layer, Tri, LAYER_PLANES, L_COL, L_LM, PLANES, P_INV_W, P_NX, P_NY, P_NZ, P_U, P_V, P_Z,
};
use super::shade::{apply_lightmap, fetch, shade_fetched, Extra, Inputs, Lighting, Material, Mode};
use super::simd::{FloatLanes, IntLanes, Kernel, Simd, LANES, SET_LANES};
use super::texel::Taps;
use fragments::Fragments;

mod fragments;

/// The samples `x..x + w`, `y..y + h` a tile covers (clipped to the target).
#[derive(Debug, Clone, Copy)]
pub struct TileRect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

/// Sample bounds shared by the triangle's box and the tile; `None` if empty.
#[inline(always)]
fn overlap(tri: &Tri, r: &TileRect) -> Option<(i32, i32, i32, i32)> {
    let x0 = tri.min_x.max(r.x);
    let y0 = tri.min_y.max(r.y);
    let x1 = tri.max_x.min(r.x + r.w - 1);
    let y1 = tri.max_y.min(r.y + r.h - 1);
    (x0 <= x1 && y0 <= y1).then_some((x0, y0, x1, y1))
}

/// Per edge: `None` when no sample of the box is inside it, otherwise whether
/// every sample is.
#[inline(always)]
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

#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn draw<S: Simd>(
    s: S,
    tri: &Tri,
    layers: &[Layer],
    materials: &[Material],
    light: &Lighting,
    r: &TileRect,
    buf: &mut TileBuffer,
    queue: &mut Queue,
) {
    // Two instances, so plain batches run the loop they ran before
    // layers (lightmaps, vertex colours, emission) existed.
    if materials[tri.material as usize].layered {
        draw_lanes::<S, true>(s, tri, layers, materials, light, r, buf, queue)
    } else {
        draw_lanes::<S, false>(s, tri, layers, materials, light, r, buf, queue)
    }
}

/// Shades the open group's queued samples and frees its slots: when a
/// triangle cannot join the group, and once a tile's triangles are drawn,
/// before the tile is resolved. Run apart (once every few triangles), so
/// the single-packet shading it inlines is not a third copy inside the walk.
#[inline(always)]
pub fn finish<S: Simd>(
    s: S,
    materials: &[Material],
    light: &Lighting,
    buf: &mut TileBuffer,
    queue: &mut Queue,
) {
    let Queue { entries, slots } = queue;
    if !slots.open {
        return;
    }
    let frag = Fragments {
        slots,
        mat: &materials[slots.material as usize],
        light,
    };
    s.apart(Drain {
        entries,
        frag: &frag,
        buf,
    });
    slots.open = false;
}

/// [`Entries::drain`] as a kernel, at the level the walk runs at.
struct Drain<'q, 'a> {
    entries: &'q mut Entries,
    frag: &'q Fragments<'a>,
    buf: &'q mut TileBuffer,
}

impl Kernel for Drain<'_, '_> {
    type Output = ();
    #[inline(always)]
    fn run<S: Simd>(self, s: S) {
        if self.frag.mat.layered {
            self.entries.drain::<S, true>(s, self.frag, self.buf)
        } else {
            self.entries.drain::<S, false>(s, self.frag, self.buf)
        }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn draw_lanes<S: Simd, const LM: bool>(
    s: S,
    tri: &Tri,
    layers: &[Layer],
    materials: &[Material],
    light: &Lighting,
    r: &TileRect,
    buf: &mut TileBuffer,
    queue: &mut Queue,
) {
    let Some((x0, y0, x1, y1)) = overlap(tri, r) else {
        return;
    };
    let Some(all_in) = classify(tri, x0, y0, x1, y1) else {
        return;
    };
    // A triangle joins the open group when its samples can be shaded
    // alongside the group's: the same material and facing, and a free slot
    // (the queue's oldest sample is not the next slot's).
    let (slots, entries) = (&queue.slots, &queue.entries);
    if slots.open
        && (slots.material != tri.material
            || slots.back != tri.back
            || (entries.len > 0 && entries.slot[0] == slots.next as i32))
    {
        finish(s, materials, light, buf, queue);
    }
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
    let lx0 = x0 - r.x;
    let lx1 = x1 - r.x;
    let ly0 = y0 - r.y;
    // The box's rows are marked dirty here, once, rather than row by row
    // as samples are written: a superset, and harmless, since a row left
    // at the background resolves to the background's bytes and is cleared
    // to what it holds.
    buf.dirty |= (u32::MAX >> (TILE as i32 - 1 - (y1 - y0))) << ly0;
    let slot = queue
        .slots
        .open::<LM>(tri, layers, x0 - tri.min_x, y0 - tri.min_y, lx0, ly0);
    let Queue { entries, slots } = queue;
    let frag = Fragments {
        slots,
        mat: &materials[tri.material as usize],
        light,
    };
    let (z0, z_dx, z_dy) = (slots.v[P_Z][slot], slots.dx[P_Z][slot], slots.dy[P_Z][slot]);

    let span = s.splat_i(lx1 - lx0);
    // Blocks are windows of eight columns, not aligned to eight: the fewest
    // that cover the box's columns, shifted left when they would run past
    // the tile's edge. A box up to eight columns wide is then one block a
    // row wherever it lies (aligned blocks would need two when it straddles
    // a multiple of eight), and loads stay inside the sample row.
    let windows = (lx1 - lx0 + LANES as i32) / LANES as i32;
    let first_block = lx0.min(TILE as i32 - LANES as i32 * windows);

    // Lane values step by a constant per block, and a row's first block by
    // a constant per row, so the loops add instead of multiplying (i32
    // lane multiplies are slow on baseline SSE2; wrapping adds give the
    // products' bits).
    let lead = first_block - lx0;
    let mut row_start = [s.splat_i(0); 3];
    let mut down = [s.splat_i(0); 3];
    let mut step = [s.splat_i(0); 3];
    for k in 0..3 {
        let start = ec[k].wrapping_add(ea[k].wrapping_mul(lead));
        row_start[k] = s.splat_i(start) + s.ramp() * s.splat_i(ea[k]);
        down[k] = s.splat_i(eb[k]);
        step[k] = s.splat_i(ea[k].wrapping_mul(LANES as i32));
    }
    for row in 0..=(y1 - y0) {
        let ly = (ly0 + row) as usize;
        let mut e = row_start;
        for k in 0..3 {
            row_start[k] = row_start[k] + down[k];
        }
        let fr = s.splat(row as f32);
        let z_row = s.splat(z0) + s.splat(z_dy) * fr;
        let mut bx = first_block;
        // The row's pending columns and the queue's length live in
        // registers while the row is walked: in memory, every block waited
        // for the previous block's store of them.
        let mut pend = entries.pending[ly];
        let mut len = entries.len;
        while bx <= lx1 {
            // The lanes' columns from the box's left edge, made afresh
            // from `bx` each block: carried as a vector from block to
            // block, it was kept in memory (no register was left) and
            // each block waited on the previous one's store.
            let cur = s.splat_i(bx - lx0) + s.ramp();
            let cols = cur.non_negative() & (span - cur).non_negative();
            let covered = (e[0] | e[1] | e[2]).non_negative() & cols;
            for k in 0..3 {
                e[k] = e[k] + step[k];
            }
            let idx = ly * TILE + bx as usize;
            let col = bx as u32;
            bx += LANES as i32;
            // No branch on whether the block is empty (it is, or wholly
            // behind, in about half the blocks, unpredictably): its depth
            // is tested anyway and pushing no lanes is a no-op.
            let z = z_row + s.splat(z_dx) * cur.to_f32();
            let mut bits = (covered & z.lt(s.load(&buf.depth[idx..]))).bits();
            // A sample an earlier triangle of the group queued has not its
            // depth and colour yet: shade the queue first, then test again.
            // (A lane failing against the older depth fails against the
            // queued one too: depth only ever decreases.)
            if bits & (pend >> col) != 0 {
                entries.len = len;
                drain_queued(s, entries, &frag, buf);
                (pend, len) = (0, 0);
                bits = (covered & z.lt(s.load(&buf.depth[idx..]))).bits();
            }
            pend |= bits << col;
            len = entries.push(s, len, bits, idx as i32, slot as i32);
            if len >= PAIR {
                entries.len = len;
                let first = entries.packet(s, 0);
                let second = entries.packet(s, LANES);
                s.apart(Pair::<S, LM> {
                    s,
                    frag: &frag,
                    p: [&first, &second],
                    buf,
                });
                pend = entries.drop_pair(bits) << col;
                len = entries.len;
            }
        }
        entries.pending[ly] = pend;
        entries.len = len;
    }
}

/// [`Fragments::shade_pair`] as a kernel, run apart from the walk: most of
/// the walk's code is the pair's shading, and in one function with it
/// every temporary of both copies (with and without a lightmap) held a
/// stack slot of its own without optimisation, 350 KiB of the walk's
/// frame on a rayon worker's stack (`docs/library.md`, "Any profile").
/// Once per sixteen samples shaded, the call costs nothing measurable.
struct Pair<'q, 'a, S: Simd, const LM: bool> {
    /// The walk's level: [`Simd::apart`] runs the kernel at it, so the
    /// level `run` is given is this one.
    s: S,
    frag: &'q Fragments<'a>,
    p: [&'q Packet<S>; 2],
    buf: &'q mut TileBuffer,
}

impl<S: Simd, const LM: bool> Kernel for Pair<'_, '_, S, LM> {
    type Output = ();
    #[inline(always)]
    fn run<T: Simd>(self, _: T) {
        self.frag.shade_pair::<S, LM>(self.s, self.p, self.buf);
    }
}

/// Shades the queue when a block meets one of its samples, out of line and
/// marked cold: it is rare, and as a plain branch of the walk the vectors
/// live across its call were spilled on every block, taken or not.
#[cold]
#[inline(never)]
fn drain_queued<S: Simd>(s: S, entries: &mut Entries, frag: &Fragments, buf: &mut TileBuffer) {
    s.apart(Drain { entries, frag, buf });
}

/// Queued samples shaded at once when there are enough: two packets,
/// whose dependency chains (planes, divide, texel addresses, gathers,
/// filter) are independent, so one's latency hides behind the other's work.
const PAIR: usize = 2 * LANES;

/// Plane rows of a slot: the triangle's attribute planes, then its layer
/// planes (lightmap, vertex colour).
const ROWS: usize = PLANES + LAYER_PLANES;
const P_LM: usize = PLANES + L_LM;
const P_COL: usize = PLANES + L_COL;

/// The triangles whose samples wait in the queue (a group: consecutive
/// triangles of one material and facing), their planes side by side:
/// entry `k` of every row is slot `k`'s, so a packet holding several
/// triangles' samples evaluates each lane with its own triangle's planes
/// by permuting the rows with its slot lanes. Slots are taken in turn,
/// round the eight; the samples queued belong to the latest triangles, so
/// a slot is free unless the oldest queued sample is its triangle's.
struct Slots {
    /// Each plane at the corner of the triangle's box in the tile.
    v: [[f32; LANES]; ROWS],
    dx: [[f32; LANES]; ROWS],
    dy: [[f32; LANES]; ROWS],
    /// Tile column and row of that corner.
    lx0: [i32; LANES],
    ly0: [i32; LANES],
    /// Whether a group is open, and the slot its next triangle takes.
    open: bool,
    next: usize,
    /// The group's material and facing (while it is open).
    material: u32,
    back: bool,
}

impl Slots {
    /// Takes the next slot for `tri`, whose box in the tile starts `(rx,
    /// ry)` samples into its bounding box, at tile column `lx0`, row `ly0`.
    #[inline(always)]
    fn open<const LM: bool>(
        &mut self,
        tri: &Tri,
        layers: &[Layer],
        rx: i32,
        ry: i32,
        lx0: i32,
        ly0: i32,
    ) -> usize {
        let k = self.next;
        self.next = (k + 1) % LANES;
        self.open = true;
        let (rx, ry) = (rx as f32, ry as f32);
        let tp = &tri.planes;
        // `Plane::at`, plane by plane.
        for j in 0..PLANES {
            self.v[j][k] = tp.v[j] + tp.dx[j] * rx + tp.dy[j] * ry;
            self.dx[j][k] = tp.dx[j];
            self.dy[j][k] = tp.dy[j];
        }
        if LM {
            // Every triangle of a layered material has its layer.
            if let Some(layer) = layers.get(tri.layer as usize) {
                for (j, p) in layer.iter().enumerate() {
                    self.v[PLANES + j][k] = p.at(rx, ry);
                    self.dx[PLANES + j][k] = p.dx;
                    self.dy[PLANES + j][k] = p.dy;
                }
            }
        }
        self.lx0[k] = lx0;
        self.ly0[k] = ly0;
        self.material = tri.material;
        self.back = tri.back;
        k
    }
}

/// Samples that passed coverage and depth, gathered from any rows, blocks
/// and triangles of a group into full lanes before they are shaded: small
/// triangles cover one or two samples of each eight-sample block, and a
/// few samples in all, and shading whole blocks, or each triangle's
/// samples apart, would spend most lanes on nothing.
///
/// One queue serves every triangle of a band of tiles: entries past the
/// length are never live, and zeroing a fresh queue per triangle cost 5 %
/// of a 256² frame (its stores stall behind the triangle's loads).
pub struct Queue {
    entries: Entries,
    slots: Slots,
}

impl Queue {
    #[inline(always)]
    pub fn new() -> Self {
        Queue {
            entries: Entries::new(),
            slots: Slots {
                v: [[0.0; LANES]; ROWS],
                dx: [[0.0; LANES]; ROWS],
                dy: [[0.0; LANES]; ROWS],
                lx0: [0; LANES],
                ly0: [0; LANES],
                open: false,
                next: 0,
                material: 0,
                back: false,
            },
        }
    }
}

/// The queued samples.
struct Entries {
    /// Each sample's index in the tile (`row · TILE + column`): one array,
    /// so a block is queued by one vector store, not one per coordinate.
    /// Room for a pair of packets and the overflow of the block pushed last.
    at: [i32; PAIR + LANES],
    /// Each sample's triangle, as its slot.
    slot: [i32; PAIR + LANES],
    len: usize,
    /// Per tile row, the columns of the queued samples (the walk keeps
    /// its current row's word in a register and stores it at the row's end).
    pending: [u32; TILE],
}

const _: () = assert!(TILE <= 32, "a tile row's pending samples are a u32");

/// `TILE` as a shift: a queued index's row is `at >> TILE_SHIFT`.
const TILE_SHIFT: i32 = TILE.trailing_zeros() as i32;
const _: () = assert!(1 << TILE_SHIFT == TILE);

/// Up to eight queued samples: tile index, triangle, and which lanes
/// hold one.
struct Packet<S: Simd> {
    at: S::I,
    owners: Owners<S>,
    live: S::I,
}

/// Each lane's triangle (its slot), and the slot when every live lane is
/// one triangle's: a per-slot value is then broadcast, sparing the permute
/// (most packets, where triangles are larger than a packet).
struct Owners<S: Simd> {
    slot: S::I,
    one: Option<usize>,
}

impl<S: Simd> Clone for Owners<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Simd> Copy for Owners<S> {}

impl<S: Simd> Owners<S> {
    /// Each lane's entry of a per-slot row of floats.
    #[inline(always)]
    fn floats(&self, s: S, row: &[f32; LANES]) -> S::F {
        match self.one {
            Some(k) => s.splat(row[k]),
            None => s.array(*row).permute(self.slot),
        }
    }

    /// Each lane's entry of a per-slot row of integers.
    #[inline(always)]
    fn ints(&self, s: S, row: &[i32; LANES]) -> S::I {
        match self.one {
            Some(k) => s.splat_i(row[k]),
            None => s.array_i(*row).permute(self.slot),
        }
    }
}

impl Entries {
    #[inline(always)]
    fn new() -> Self {
        Entries {
            at: [0; PAIR + LANES],
            slot: [0; PAIR + LANES],
            len: 0,
            pending: [0; TILE],
        }
    }

    /// Shades every queued sample, one packet at a time, and empties the
    /// queue. One at a time: shading the last two as a pair was slower
    /// (most groups end with a single part-filled packet).
    #[inline(always)]
    fn drain<S: Simd, const LM: bool>(&mut self, s: S, frag: &Fragments, buf: &mut TileBuffer) {
        let mut at = 0;
        while at < self.len {
            frag.shade::<S, LM>(s, &self.packet(s, at), buf);
            at += LANES;
        }
        self.pending = [0; TILE];
        self.len = 0;
    }

    /// Appends the lanes set in `lanes` of the block starting at tile index
    /// `block`, drawn by the triangle in `slot`, after the first `len`
    /// entries, and returns the new length, without a branch: eight entries
    /// are always written (the queue is drained whenever it reaches PAIR,
    /// so they fit) and the length grows by the lanes set.
    ///
    /// The length is the caller's, not `self.len`: the walk keeps it in a
    /// register and stores it before anything else reads the queue.
    #[inline(always)]
    fn push<S: Simd>(&mut self, s: S, len: usize, lanes: u32, block: i32, slot: i32) -> usize {
        let lanes = lanes & 0xff;
        let n = len & (PAIR - 1);
        // One eight-lane add and store (written as a loop over a slice
        // starting at `n`, it was split into stores of 4, 2, 1 and 1).
        let at = s.set_lanes(lanes) + s.splat_i(block);
        self.at[n..n + LANES].copy_from_slice(&at.to_array());
        self.slot[n..n + LANES].fill(slot);
        n + lanes.count_ones() as usize
    }

    /// The (up to) eight queued samples from entry `at` (0 or LANES) on.
    #[inline(always)]
    fn packet<S: Simd>(&self, s: S, at: usize) -> Packet<S> {
        let mut idx = [0i32; LANES];
        idx.copy_from_slice(&self.at[at..at + LANES]);
        let mut slot = [0i32; LANES];
        slot.copy_from_slice(&self.slot[at..at + LANES]);
        let n = self.len.saturating_sub(at).min(LANES);
        // Slots are queued in ring order, and eight entries cannot span
        // the whole ring and back: equal ends mean one triangle.
        let one = (n > 0 && slot[n - 1] == slot[0]).then_some(slot[0] as usize & (LANES - 1));
        Packet {
            at: s.array_i(idx),
            owners: Owners {
                slot: s.array_i(slot),
                one,
            },
            live: s.ramp().lt(s.splat_i(n as i32)),
        }
    }

    /// Drops the first PAIR samples (both packets shaded); the overflow
    /// of the last push, under eight, moves to the front. Given that push's
    /// `lanes`, returns those still queued (the overflow's).
    ///
    /// Only the overflow is pending now, all of it in the pushed block's
    /// row: the pending words are zeroed whole (a few vector stores) rather
    /// than cleared sample by sample, which was a chain of read-modify-writes
    /// of one word, and the caller, walking that row, holds its word.
    #[inline(always)]
    fn drop_pair(&mut self, lanes: u32) -> u32 {
        let lanes = lanes & 0xff;
        let over = self.len - PAIR;
        // The overflow is the last `over` set lanes: from the first of
        // them up (none when `over` is 0, where the table holds padding).
        let fit = lanes.count_ones() as usize - over;
        let first = SET_LANES[lanes as usize][fit.min(LANES - 1)] as u32;
        let kept = lanes & (0xff << first);
        self.pending = [0; TILE];
        self.at.copy_within(PAIR.., 0);
        self.slot.copy_within(PAIR.., 0);
        self.len = over;
        if over > 0 {
            kept
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Entries {
        /// [`Entries::push`] keeping the length in the queue.
        fn add(&mut self, lanes: u32, block: i32, slot: i32) {
            self.len = self.push(crate::simd::Portable, self.len, lanes, block, slot);
        }
    }

    #[test]
    fn pushes_queue_exactly_the_set_lanes_in_order() {
        // Every mask pushed after every queue length the loop can leave:
        // the entries are the set lanes of the block, in lane order, after
        // what was queued, whatever was written beyond them.
        for before in 0..PAIR as u32 {
            for lanes in 0..256u32 {
                let mut q = Entries::new();
                let full = before.min(LANES as u32);
                q.add((1 << full) - 1, 40, 1);
                q.add((1 << (before - full)) - 1, 40 + LANES as i32, 1);
                q.add(lanes, 3 * TILE as i32 + 16, 6);
                let want: Vec<i32> = (0..8)
                    .filter(|l| lanes & (1 << l) != 0)
                    .map(|l| 3 * TILE as i32 + 16 + l)
                    .collect();
                let n = before as usize;
                assert_eq!(q.len, n + want.len());
                assert_eq!(&q.at[n..q.len], &want[..], "{before} {lanes:08b}");
                assert!(q.at[..n].iter().zip(0..).all(|(&x, l)| x == 40 + l));
                // Each entry keeps the slot of the triangle that pushed it.
                assert!(q.slot[..n].iter().all(|&k| k == 1));
                assert!(q.slot[n..q.len].iter().all(|&k| k == 6));
            }
        }
    }

    #[test]
    fn a_dropped_pair_leaves_the_overflow_lanes_pending() {
        // Every queue length a push can start from and every mask that
        // fills the pair: the lanes returned are exactly those of the
        // entries left, and nothing else is pending.
        for before in 0..PAIR {
            for lanes in 0..256u32 {
                let mut q = Entries::new();
                q.add(0xff, 0, 0);
                q.len = before;
                q.add(lanes, 5 * TILE as i32 + 8, 1);
                if q.len < PAIR {
                    continue;
                }
                q.pending = [u32::MAX; TILE];
                let kept = q.drop_pair(lanes);
                let want = q.at[..q.len]
                    .iter()
                    .fold(0, |m, &at| m | 1 << (at - 5 * TILE as i32 - 8));
                assert_eq!(kept, want, "{before} {lanes:08b}");
                assert_eq!(q.pending, [0; TILE]);
            }
        }
    }

    #[test]
    fn packets_come_in_queue_order() {
        // Fifteen lanes queued, then a block of four: a pair of packets
        // holds the first sixteen and the rest moves to the front.
        let mut q = Entries::new();
        q.add(0xff, 0, 0);
        q.add(0x7f, 8, 1);
        q.add(0b1010_0011, 48, 2);
        assert_eq!(q.len, PAIR + 3);
        let s = crate::simd::Portable;
        let first = q.packet(s, 0);
        let second = q.packet(s, LANES);
        assert_eq!(first.at.to_array(), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(first.live.bits(), 0xff);
        assert_eq!(second.at.to_array(), [8, 9, 10, 11, 12, 13, 14, 48]);
        assert_eq!(second.live.bits(), 0xff);
        assert_eq!(first.owners.slot.to_array(), [0; 8]);
        assert_eq!(second.owners.slot.to_array(), [1, 1, 1, 1, 1, 1, 1, 2]);
        // One triangle's packet is known as such; a mixed one is not.
        assert_eq!((first.owners.one, second.owners.one), (Some(0), None));
        q.pending[3] = 0b1010;
        // Lanes 0, 1, 5 and 7 were pushed and the first fitted: the rest
        // stay pending, and no other sample does.
        assert_eq!(q.drop_pair(0b1010_0011), 0b1010_0010);
        assert_eq!(q.pending, [0; TILE]);
        assert_eq!(q.len, 3);
        let rest = q.packet(s, 0);
        assert_eq!(&rest.at.to_array()[..3], [49, 53, 55]);
        assert_eq!(rest.live.bits(), 0b111);
        assert_eq!(&rest.owners.slot.to_array()[..3], [2, 2, 2]);
        assert_eq!(rest.owners.one, Some(2));
        // Lanes past the queue are not live, in either packet.
        assert_eq!(q.packet(s, LANES).live.bits(), 0);
        q.add(0xff, 24, 3);
        q.add(0x01, 64, 0);
        assert_eq!(q.packet(s, LANES).live.bits(), 0b1111);
        assert_eq!(&q.packet(s, LANES).at.to_array()[..4], [29, 30, 31, 64]);
        assert_eq!(
            &q.packet(s, LANES).owners.slot.to_array()[..4],
            [3, 3, 3, 0]
        );
        assert_eq!(q.packet(s, LANES).owners.one, None);
        // Lanes past the queue do not count: three live lanes of slot 3.
        q.len = LANES + 3;
        assert_eq!(q.packet(s, LANES).owners.one, Some(3));
    }
}
