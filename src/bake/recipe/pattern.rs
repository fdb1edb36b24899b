//! The set of file names an output can produce, as a small automaton, so
//! two outputs can be checked for a name they could both write — a templated
//! name against a literal one (`f_{dir}_{frame}.png` against `f_1_0.png`),
//! or two templates — before anything is baked.

use super::directions::Direction;
use super::job::Job;
use super::maps::MapJob;
use super::template::{padded, Part, Template};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Bound;
use std::path::{Component, Path};

/// One piece of a file pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// These exact characters.
    Lit(String),
    /// One of these strings.
    Alt(Vec<String>),
    /// One or more decimal digits (a frame index).
    Digits,
}

/// The names one output can write: a path whose file name may hold holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePattern {
    toks: Vec<Tok>,
}

/// What a template's holes can be filled with.
pub struct Holes<'a> {
    /// `{name}`.
    pub name: &'a str,
    /// `{clip}`: the job's clip names.
    pub clips: Vec<String>,
    /// `{dir}` and `{yaw}`: the job's directions.
    pub dirs: &'a [Direction],
}

impl FilePattern {
    /// A single file.
    pub fn literal(path: &Path) -> FilePattern {
        FilePattern {
            toks: vec![Tok::Lit(normal_text(path))],
        }
    }

    /// The files `template` names inside `dir`.
    pub fn template(dir: &Path, template: &Template, holes: &Holes) -> FilePattern {
        let mut toks = vec![Tok::Lit(format!("{}/", normal_text(dir)))];
        for p in &template.parts {
            toks.push(match p {
                Part::Text(t) => Tok::Lit(t.replace('\\', "/")),
                Part::Name => Tok::Lit(holes.name.to_string()),
                Part::Clip => Tok::Alt(holes.clips.clone()),
                Part::Dir(w) => Tok::Alt(
                    holes
                        .dirs
                        .iter()
                        .map(|d| padded(d.index as i64, *w))
                        .collect(),
                ),
                Part::Yaw(w) => Tok::Alt(
                    holes
                        .dirs
                        .iter()
                        .map(|d| padded(d.yaw.round() as i64, *w))
                        .collect(),
                ),
                Part::Frame(_) => Tok::Digits,
            });
        }
        FilePattern { toks }
    }

    /// A name both patterns can produce, if there is one.
    pub fn overlap(&self, other: &FilePattern) -> Option<String> {
        let a = Nfa::of(self);
        let b = Nfa::of(other);
        // Breadth-first over pairs of states; the first accepting pair
        // gives the shortest shared name.
        let mut seen: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut queue: VecDeque<(usize, usize, String)> = VecDeque::new();
        for &x in &a.closure(0) {
            for &y in &b.closure(0) {
                if seen.insert((x, y)) {
                    queue.push_back((x, y, String::new()));
                }
            }
        }
        while let Some((x, y, name)) = queue.pop_front() {
            if a.accept.contains(&x) && b.accept.contains(&y) {
                return Some(name);
            }
            for (ca, xa) in &a.edges[x] {
                for (cb, yb) in &b.edges[y] {
                    let Some(c) = ca.meet(cb) else { continue };
                    for &x2 in &a.closure(*xa) {
                        for &y2 in &b.closure(*yb) {
                            if seen.insert((x2, y2)) {
                                let mut n = name.clone();
                                n.push(c);
                                queue.push_back((x2, y2, n));
                            }
                        }
                    }
                }
            }
        }
        None
    }

    /// The text every name of the pattern starts with: its leading literal
    /// pieces.
    fn fixed_prefix(&self) -> String {
        let mut s = String::new();
        for t in &self.toks {
            match t {
                Tok::Lit(l) => s.push_str(l),
                _ => break,
            }
        }
        s
    }
}

/// Claimed patterns, found by their fixed prefixes, so that checking a new
/// one against thousands of earlier ones looks only at those it could
/// meet: two patterns share a name only if one's fixed prefix starts the
/// other's (every name of each starts with its own). A catalogue's jobs,
/// each in its own folder, then meet none, and the check grows with the
/// number of outputs instead of its square.
///
/// A literal name (most of a catalogue's) is kept once, as its prefix:
/// the pattern is made again from it only when a new claim comes near.
pub struct PatternIndex<T> {
    /// Each claim in order: its pattern (`None`: the literal name its
    /// prefix spells) and its owner.
    entries: Vec<(Option<FilePattern>, T)>,
    by_prefix: BTreeMap<String, Slots>,
}

/// The claims under one prefix: almost always one, kept without a list.
enum Slots {
    One(usize),
    Many(Vec<usize>),
}

impl Slots {
    fn as_slice(&self) -> &[usize] {
        match self {
            Slots::One(i) => std::slice::from_ref(i),
            Slots::Many(v) => v,
        }
    }
}

impl<T> Default for PatternIndex<T> {
    fn default() -> Self {
        PatternIndex {
            entries: Vec::new(),
            by_prefix: BTreeMap::new(),
        }
    }
}

impl<T> PatternIndex<T> {
    /// Claims `pattern` for `owner`.
    pub fn push(&mut self, pattern: FilePattern, owner: T) {
        let key = pattern.fixed_prefix();
        let i = self.entries.len();
        match self.by_prefix.entry(key) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(Slots::One(i));
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                let slots = o.get_mut();
                match slots {
                    Slots::Many(all) => all.push(i),
                    Slots::One(first) => *slots = Slots::Many(vec![*first, i]),
                }
            }
        }
        let literal = pattern.toks.iter().all(|t| matches!(t, Tok::Lit(_)));
        self.entries.push(((!literal).then_some(pattern), owner));
    }

    /// The earliest claim (in the order claimed) not `skip`ped that can
    /// write a name `pattern` can, with the shortest such name: what a scan
    /// of every claim in order would find.
    pub fn first_overlap(
        &self,
        pattern: &FilePattern,
        skip: impl Fn(&T) -> bool,
    ) -> Option<(String, &T)> {
        let prefix = pattern.fixed_prefix();
        // Each near claim with its prefix.
        let mut near: Vec<(usize, &str)> = Vec::new();
        // Claims whose prefix starts this one's ...
        for (i, _) in prefix.char_indices().chain([(prefix.len(), ' ')]) {
            if let Some((k, v)) = self.by_prefix.get_key_value(&prefix[..i]) {
                near.extend(v.as_slice().iter().map(|&j| (j, k.as_str())));
            }
        }
        // ... and claims whose prefix this one starts (longer ones).
        let longer = self
            .by_prefix
            .range::<str, _>((Bound::Excluded(prefix.as_str()), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix.as_str()));
        for (k, v) in longer {
            near.extend(v.as_slice().iter().map(|&j| (j, k.as_str())));
        }
        near.sort_unstable();
        near.dedup();
        near.into_iter().find_map(|(i, key)| {
            let (p, owner) = &self.entries[i];
            if skip(owner) {
                return None;
            }
            let name = match p {
                Some(p) => p.overlap(pattern),
                None => FilePattern {
                    toks: vec![Tok::Lit(key.to_string())],
                }
                .overlap(pattern),
            };
            name.map(|name| (name, owner))
        })
    }
}

/// A path as text with `/` separators, `.` components dropped and `..`
/// folded, so two spellings of one file compare equal.
fn normal_text(p: &Path) -> String {
    let n = crate::paths::normalize(p);
    let mut parts: Vec<String> = Vec::new();
    for c in n.components() {
        match c {
            Component::RootDir => parts.push(String::new()),
            Component::Prefix(x) => parts.push(x.as_os_str().to_string_lossy().into_owned()),
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/").replace("//", "/")
}

/// What one edge reads.
#[derive(Debug, Clone, Copy)]
enum Class {
    Char(char),
    Digit,
}

impl Class {
    /// A character both classes accept.
    fn meet(&self, other: &Class) -> Option<char> {
        match (self, other) {
            (Class::Char(a), Class::Char(b)) => (a == b).then_some(*a),
            (Class::Char(a), Class::Digit) | (Class::Digit, Class::Char(a)) => {
                a.is_ascii_digit().then_some(*a)
            }
            (Class::Digit, Class::Digit) => Some('0'),
        }
    }
}

/// A non-deterministic automaton over characters with empty moves.
struct Nfa {
    edges: Vec<Vec<(Class, usize)>>,
    empty: Vec<Vec<usize>>,
    accept: BTreeSet<usize>,
}

impl Nfa {
    fn of(p: &FilePattern) -> Nfa {
        let mut n = Nfa {
            edges: vec![Vec::new()],
            empty: vec![Vec::new()],
            accept: BTreeSet::new(),
        };
        let mut cur = 0;
        for t in &p.toks {
            cur = match t {
                Tok::Lit(s) => n.chain(cur, s),
                Tok::Alt(options) => {
                    let end = n.node();
                    for o in options {
                        let last = n.chain(cur, o);
                        n.empty[last].push(end);
                    }
                    end
                }
                Tok::Digits => {
                    let end = n.node();
                    n.edges[cur].push((Class::Digit, end));
                    n.edges[end].push((Class::Digit, end));
                    end
                }
            };
        }
        n.accept.insert(cur);
        n
    }

    fn node(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.empty.push(Vec::new());
        self.edges.len() - 1
    }

    /// States for the characters of `s` after `from`; returns the last.
    fn chain(&mut self, from: usize, s: &str) -> usize {
        let mut cur = from;
        for c in s.chars() {
            let next = self.node();
            self.edges[cur].push((Class::Char(c), next));
            cur = next;
        }
        if cur == from {
            // An empty alternative still needs its own state to join from.
            let next = self.node();
            self.empty[cur].push(next);
            cur = next;
        }
        cur
    }

    /// `s` and every state its empty moves reach.
    fn closure(&self, s: usize) -> Vec<usize> {
        let mut out = vec![s];
        let mut i = 0;
        while i < out.len() {
            for &t in &self.empty[out[i]] {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
            i += 1;
        }
        out
    }
}

/// Every file a job can write, by output key, with its folder taken as
/// `dir` (the job's own, or that folder resolved through links).
pub fn job_patterns(job: &Job, dir: &Path) -> Vec<(&'static str, FilePattern)> {
    let o = &job.output;
    let holes = Holes {
        name: &job.name,
        clips: job.clips.iter().map(|c| c.name.clone()).collect(),
        dirs: &job.directions,
    };
    let moved = |p: &Path| match p.strip_prefix(&o.dir) {
        Ok(rest) => dir.join(rest),
        Err(_) => p.to_path_buf(),
    };
    let mut v = Vec::new();
    if let Some(s) = &o.sheet {
        v.push(("sheet", FilePattern::literal(&moved(s))));
    }
    if let Some(m) = &o.meta {
        v.push(("meta", FilePattern::literal(&moved(m))));
    }
    if let Some(t) = &o.frames {
        v.push(("frames", FilePattern::template(dir, t, &holes)));
    }
    if let Some(t) = &o.gif {
        v.push(("gif", FilePattern::template(dir, t, &holes)));
    }
    if let Some(t) = &o.apng {
        v.push(("apng", FilePattern::template(dir, t, &holes)));
    }
    for (f, path) in &o.metadata {
        if *f != super::MetaFormat::TexturePackerHash {
            v.push(("metadata", FilePattern::literal(&moved(path))));
        }
    }
    if let Some(g) = &o.gltf {
        v.push(("gltf", FilePattern::literal(&moved(g))));
    }
    if let Some(base) = &o.ro_sprite {
        for ext in [".spr", ".act"] {
            let mut file = moved(base).into_os_string();
            file.push(ext);
            v.push(("ro_sprite", FilePattern::literal(Path::new(&file))));
        }
    }
    for p in job.pass_files() {
        v.push(("sheet", FilePattern::literal(&moved(&p))));
    }
    v
}

/// Every file a map writes, one per view, with its folder taken as `dir`.
pub fn map_patterns(map: &MapJob, dir: &Path) -> Vec<(String, FilePattern)> {
    map.views
        .iter()
        .map(|v| {
            let file = match v.file.strip_prefix(&map.dir) {
                Ok(rest) => dir.join(rest),
                Err(_) => v.file.clone(),
            };
            (v.name.clone(), FilePattern::literal(&file))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(yaws: &[f32]) -> Vec<Direction> {
        yaws.iter()
            .enumerate()
            .map(|(index, &yaw)| Direction { index, yaw })
            .collect()
    }

    fn tpl(dir: &str, text: &str, d: &[Direction]) -> FilePattern {
        let t = Template::parse(text, &["name", "clip", "dir", "yaw", "frame"]).unwrap();
        let holes = Holes {
            name: "hero",
            clips: vec!["walk".into(), "idle".into()],
            dirs: d,
        };
        FilePattern::template(Path::new(dir), &t, &holes)
    }

    #[test]
    fn a_literal_a_template_can_write_collides() {
        let d = dirs(&[0.0, 90.0]);
        let frames = tpl("out", "f_{dir}_{frame}.png", &d);
        let sheet = FilePattern::literal(Path::new("out/f_1_0.png"));
        assert_eq!(frames.overlap(&sheet).as_deref(), Some("out/f_1_0.png"));
        // Direction 2 does not exist, and `{frame}` needs a digit.
        assert!(frames
            .overlap(&FilePattern::literal(Path::new("out/f_2_0.png")))
            .is_none());
        assert!(frames
            .overlap(&FilePattern::literal(Path::new("out/f_1_.png")))
            .is_none());
        // Another spelling of the same folder.
        assert!(frames
            .overlap(&FilePattern::literal(Path::new("out/./x/../f_0_12.png")))
            .is_some());
    }

    #[test]
    fn two_templates_meet_where_their_holes_allow() {
        let d = dirs(&[0.0, 45.0]);
        let a = tpl("out", "{name}_{clip}_{frame}.png", &d);
        let b = tpl("out", "hero_walk_{yaw}.png", &d);
        assert_eq!(a.overlap(&b).as_deref(), Some("out/hero_walk_0.png"));
        let c = tpl("out", "{name}_{clip}.gif", &d);
        assert!(a.overlap(&c).is_none());
        let other_folder = tpl("out2", "{name}_{clip}_{frame}.png", &d);
        assert!(a.overlap(&other_folder).is_none());
    }

    #[test]
    fn the_index_finds_what_a_scan_of_every_claim_finds() {
        // Folders that start one another, names that start one another,
        // holes first and last, literals inside templates' ranges.
        let d = dirs(&[0.0, 90.0]);
        let folders = ["out", "out/a", "out/ab", "out/a/b", "o"];
        let texts = [
            "{name}_{frame}.png",
            "f_{dir}_{frame}.png",
            "{clip}.gif",
            "{frame}.png",
            "hero_walk.gif",
            "f_1_0.png",
            "sheet.png",
            "a/b/{clip}_{dir}.png",
            "b/walk_0.png",
        ];
        let mut all: Vec<FilePattern> = Vec::new();
        for f in folders {
            for x in texts {
                all.push(tpl(f, x, &d));
                all.push(FilePattern::literal(&Path::new(f).join(x)));
            }
        }
        // A fixed shuffle (an LCG), so claims arrive in no tidy order.
        let mut seed = 12345u64;
        for i in (1..all.len()).rev() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            all.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let mut index: PatternIndex<usize> = PatternIndex::default();
        let mut met = 0;
        for (i, p) in all.iter().enumerate() {
            // Every third claim skips even owners, as a bake skips its own job.
            let skip = |o: &usize| i.is_multiple_of(3) && o.is_multiple_of(2);
            let scan = all[..i]
                .iter()
                .enumerate()
                .filter(|(o, _)| !skip(o))
                .find_map(|(o, q)| q.overlap(p).map(|name| (name, o)));
            let found = index.first_overlap(p, skip).map(|(name, o)| (name, *o));
            assert_eq!(found, scan, "claim {i}");
            met += usize::from(scan.is_some());
            index.push(p.clone(), i);
        }
        // The case must exercise both answers.
        assert!(met > 20 && met < all.len() - 20, "{met} of {}", all.len());
    }
}
