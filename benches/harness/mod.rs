//! kiln's benchmark harness: each case runs in timed samples of enough
//! iterations to last `sample_time`, and prints the fastest, the median and
//! the slowest time per iteration.
//!
//! kiln's own rather than criterion: the figures in docs/benchmarks.md are
//! minima and medians of a few seconds of work compared side by side in one
//! run, which is all this does, and criterion with its statistics, plots and
//! regex brought some twenty crates into every test build and lint of the
//! repository (docs/design.md, "Why these dependencies").
//!
//! `cargo bench --bench NAME -- FILTER` runs the cases whose name contains
//! FILTER (a trailing `$`: ends with it); `--list` names the cases without
//! timing them. `KILN_BENCH_SAMPLES` and `KILN_BENCH_SAMPLE_MS` change the
//! number and length of samples; `KILN_BENCH_RAW=1` adds a line per case,
//! `raw NAME<TAB>ms ms …`, each sample's time per iteration, for scripts
//! (benches/one_core.py).

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The cases of one bench binary, filtered by the command line.
pub struct Bench {
    filter: Option<String>,
    list: bool,
    raw: bool,
    samples: usize,
    sample_time: Duration,
    per_item: Option<u64>,
}

/// What one case measured, per iteration.
pub struct Timing {
    /// The fastest sample.
    pub min: Duration,
    /// The median sample.
    pub median: Duration,
    /// The slowest sample.
    pub max: Duration,
}

impl Bench {
    /// Reads the filter (the first argument that is not a `--flag`: cargo
    /// passes `--bench` to every harness) and the sampling from the
    /// environment.
    pub fn from_args() -> Bench {
        let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
        let list = std::env::args().any(|a| a == "--list");
        let env = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .unwrap_or(default)
        };
        Bench {
            filter,
            list,
            raw: std::env::var_os("KILN_BENCH_RAW").is_some(),
            samples: env("KILN_BENCH_SAMPLES", 20) as usize,
            sample_time: Duration::from_millis(env("KILN_BENCH_SAMPLE_MS", 200)),
            per_item: None,
        }
    }

    /// The number of samples each following case takes (at least 2).
    pub fn samples(&mut self, n: usize) -> &mut Bench {
        if std::env::var_os("KILN_BENCH_SAMPLES").is_none() {
            self.samples = n.max(2);
        }
        self
    }

    /// Each following case's iteration handles `n` items (pixels, frames):
    /// the report adds the rate.
    pub fn throughput(&mut self, n: u64) -> &mut Bench {
        self.per_item = Some(n);
        self
    }

    /// Times `f` unless the filter leaves the case out. The first call is a
    /// warm-up and sets how many iterations a sample holds.
    pub fn run<R>(&mut self, name: &str, mut f: impl FnMut() -> R) -> Option<Timing> {
        let wanted = match self.filter.as_deref() {
            None => true,
            Some(p) => match p.strip_suffix('$') {
                Some(end) => name.ends_with(end),
                None => name.contains(p),
            },
        };
        if !wanted {
            return None;
        }
        if self.list {
            println!("{name}: bench");
            return None;
        }
        let start = Instant::now();
        std::hint::black_box(f());
        let once = start.elapsed().max(Duration::from_nanos(1));
        let per_sample = (self.sample_time.as_nanos() / once.as_nanos()).clamp(1, 1_000_000) as u32;
        let mut times: Vec<Duration> = (0..self.samples)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..per_sample {
                    std::hint::black_box(f());
                }
                start.elapsed() / per_sample
            })
            .collect();
        if self.raw {
            let ms: Vec<String> = times
                .iter()
                .map(|t| format!("{:.6}", t.as_secs_f64() * 1e3))
                .collect();
            println!("raw {name}\t{}", ms.join(" "));
        }
        times.sort();
        let timing = Timing {
            min: times[0],
            median: times[times.len() / 2],
            max: times[times.len() - 1],
        };
        let rate = match self.per_item {
            Some(n) if timing.min > Duration::ZERO => {
                let per_s = n as f64 / timing.min.as_secs_f64();
                if per_s >= 1e6 {
                    format!(", {:.1} M/s", per_s / 1e6)
                } else {
                    format!(", {per_s:.1}/s")
                }
            }
            _ => String::new(),
        };
        println!(
            "{name:<48} min {}  median {}  max {}  ({} × {per_sample}{rate})",
            show(timing.min),
            show(timing.median),
            show(timing.max),
            self.samples,
        );
        Some(timing)
    }
}

fn show(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns >= 1e9 {
        format!("{:8.3} s ", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:8.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:8.3} µs", ns / 1e3)
    } else {
        format!("{ns:8.0} ns")
    }
}
