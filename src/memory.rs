//! How much memory decoded inputs may take: one limit for a bake's jobs
//! (`--memory-limit`, [`BakeOptions::memory_limit`](crate::BakeOptions))
//! and for `kiln convert` and `kiln inspect`, and the allowance one load
//! charges its decoded images to (textures, a client sprite's images)
//! before it allocates them.
//!
//! A header can name a 16384² texture in a few kilobytes (a DXT mip
//! behind LZO, an RLE TGA of long runs); what that costs in memory is
//! known before anything is decoded, so the load refuses it with the file,
//! field and offset instead of asking the allocator for a gigabyte it may
//! not have. The buffers that pass are reserved fallibly: a machine that
//! has less than the limit (a container's address-space cap) gets an error
//! too, never an abort.

use std::sync::atomic::{AtomicU64, Ordering};

/// The memory a job's images, or one `convert` or `inspect`, may take
/// unless `--memory-limit` says otherwise: 4 GiB, far more than a sprite
/// bake needs (480 frames of 256² and their sheet take 252 MB) or the
/// largest texture kiln decodes (16384², 1 GiB), and less than takes a
/// small machine down.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// The bytes one load's decoded images may take together: each is charged
/// before it is allocated and stays charged while the load's model, sprite
/// or texture holds it.
#[derive(Debug)]
pub struct Allowance {
    limit: u64,
    used: AtomicU64,
}

impl Default for Allowance {
    fn default() -> Self {
        Allowance::new(DEFAULT_MEMORY_LIMIT)
    }
}

impl Allowance {
    /// `limit` bytes, none used.
    pub fn new(limit: u64) -> Allowance {
        Allowance {
            limit,
            used: AtomicU64::new(0),
        }
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Charges `bytes` for good, or says why they do not fit: how much,
    /// and the limit, worded to follow "… need" ("1 GiB in memory, more
    /// than the memory limit of 512 MiB …").
    pub fn take(&self, bytes: u64) -> Result<(), String> {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let after = used.saturating_add(bytes);
            if after > self.limit {
                return Err(self.refusal(bytes, used));
            }
            match self
                .used
                .compare_exchange_weak(used, after, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => used = now,
            }
        }
    }

    /// Charges `bytes` until the returned guard is dropped (a decoder's
    /// working buffer).
    pub fn hold(&self, bytes: u64) -> Result<Held<'_>, String> {
        self.take(bytes)?;
        Ok(Held {
            allowance: self,
            bytes,
        })
    }

    fn refusal(&self, bytes: u64, used: u64) -> String {
        let beside = if used > 0 {
            format!(" beside the {} already decoded", human_bytes(used))
        } else {
            String::new()
        };
        format!(
            "{} in memory{beside}, more than the memory limit of {} \
             (raise it with --memory-limit)",
            human_bytes(bytes),
            human_bytes(self.limit)
        )
    }
}

/// Bytes charged to an [`Allowance`] until dropped.
#[derive(Debug)]
pub struct Held<'a> {
    allowance: &'a Allowance,
    bytes: u64,
}

impl Held<'_> {
    /// Keeps the bytes charged for good: what was decoded into them is
    /// kept by the load.
    pub fn keep(mut self) {
        self.bytes = 0;
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.allowance.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// An empty vector with room for `n` elements, or why the allocator could
/// not give it (worded as the end of a sentence): a limit the process
/// runs under (`ulimit -v`, a container's) that is below kiln's own.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        format!(
            "could not allocate {} (the process has less memory than that)",
            human_bytes((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))
        )
    })?;
    Ok(v)
}

/// Sizes for messages: `1.5 GiB`, `12 MiB`, `300 bytes` (a whole number
/// of its unit without a decimal, else to a tenth; GiB at most).
pub fn human_bytes(n: u64) -> String {
    size_text(n, 3, Tenths::WhenFractional)
}

/// Sizes of a bake's memory plan, in the binary units `--memory-limit`
/// takes: `512 MiB`, `4.0 GiB`, `1.5 TiB` (a tenth below ten of its unit,
/// whole above; TiB at most).
pub fn rounded_bytes(n: u64) -> String {
    size_text(n, 4, Tenths::BelowTen)
}

/// When a size's text shows a tenth of its unit.
#[derive(Clone, Copy)]
enum Tenths {
    WhenFractional,
    BelowTen,
}

/// `n` bytes in the largest binary unit it reaches, up to unit `top`
/// (1 KiB … 4 TiB).
fn size_text(n: u64, top: u32, tenths: Tenths) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let Some(unit) = (1..=top).rev().find(|&u| n >= 1 << (10 * u)) else {
        return format!("{n} bytes");
    };
    let v = n as f64 / (1u64 << (10 * unit)) as f64;
    let tenth = match tenths {
        Tenths::WhenFractional => v.fract() != 0.0,
        Tenths::BelowTen => v < 10.0,
    };
    let name = UNITS[unit as usize];
    if tenth {
        format!("{v:.1} {name}")
    } else {
        format!("{v:.0} {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_bytes(300), "300 bytes");
        assert_eq!(human_bytes(256 << 20), "256 MiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(4 << 40), "4096 GiB");
        assert_eq!(rounded_bytes(300), "300 bytes");
        assert_eq!(rounded_bytes(4 << 30), "4.0 GiB");
        assert_eq!(rounded_bytes(3 << 29), "1.5 GiB");
        assert_eq!(rounded_bytes((31 << 10) + 700), "32 KiB");
        assert_eq!(rounded_bytes(4 << 40), "4.0 TiB");
    }

    #[test]
    fn takes_until_the_limit_and_holds_give_back() {
        let a = Allowance::new(100);
        a.take(60).unwrap();
        {
            let _h = a.hold(40).unwrap();
            assert_eq!(a.used(), 100);
            assert_eq!(
                a.take(1).unwrap_err(),
                "1 bytes in memory beside the 100 bytes already decoded, more than the \
                 memory limit of 100 bytes (raise it with --memory-limit)"
            );
        }
        assert_eq!(a.used(), 60);
        assert!(a.take(41).is_err());
        a.hold(30).unwrap().keep();
        assert_eq!(a.used(), 90);
        assert_eq!(
            Allowance::new(1 << 30).take(2 << 30).unwrap_err(),
            "2 GiB in memory, more than the memory limit of 1 GiB (raise it with \
             --memory-limit)"
        );
    }

    #[test]
    fn an_impossible_vector_is_an_error_not_an_abort() {
        let e = try_vec::<[u8; 4]>(usize::MAX / 8).unwrap_err();
        assert!(e.starts_with("could not allocate "), "{e}");
        assert_eq!(try_vec::<u8>(10).unwrap().capacity(), 10);
    }
}
