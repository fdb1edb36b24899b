//! The fields of an RSW file whose presence the public readers and the
//! research notes disagree on, and which reading each version is expected
//! to have.
//!
//! Every version's header and object fields follow from the version alone
//! (the water block from 1.3 to 2.5, the sun from 1.5, the bounds from 1.6,
//! the build number from 2.2, the render flag from 2.5, …), except the ones
//! named by [`Field`]. For those, [`Layout::expected`] gives the reading the
//! most recent research documents and [`Layout::disputed`] the fields other
//! readers read differently for that version; the parser tries every
//! combination and the file's structure decides (see `parse.rs`).

use serde::Serialize;

/// One reading of the disputed fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// The header stores the `.gat` name (four 40-byte names, not three).
    pub gat_name: bool,
    /// A 2.4 header has four bytes after the build number.
    pub release: bool,
    /// A counted list of 4-byte values follows the bounds (2.7).
    pub extra_list: bool,
    /// Each model instance has a byte after its block type.
    pub model_flag: bool,
    /// Each model instance has four more bytes after that (2.7).
    pub model_extra: bool,
    /// Each sound source ends with its cycle interval.
    pub sound_cycle: bool,
}

/// A field of [`Layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// [`Layout::gat_name`].
    GatName,
    /// [`Layout::release`].
    Release,
    /// [`Layout::extra_list`].
    ExtraList,
    /// [`Layout::model_flag`].
    ModelFlag,
    /// [`Layout::sound_cycle`].
    SoundCycle,
}

impl Layout {
    /// The reading the most recent research gives the version:
    ///
    /// - `.gat` name from 1.4 (GRF Editor, roBrowser; BrowEdit from 1.5);
    /// - sound cycle from 2.0 (GRF Editor, BrowEdit, roBrowser and the 2025
    ///   LATAM survey's reader; RagLite from 2.1);
    /// - no bytes after a 2.4 build (RagnarokResearchLab's notes and the
    ///   2025 reader; an older research thread reads four);
    /// - the model byte in 2.6 from build 186 (GRF Editor, BrowEdit, and the
    ///   2025 reader, which finds it in builds 187 and 197 but not 162;
    ///   RagLite and its fixture from 162), and in 2.7;
    /// - in 2.7 (and, tried as the newest layout, anything later) the list
    ///   after the bounds and four bytes per model instance (GRF Editor,
    ///   BrowEdit, the 2025 reader).
    pub fn expected(major: u8, minor: u8, build: Option<u32>) -> Layout {
        let v = (major, minor);
        let late_26 = v == (2, 6) && build.unwrap_or(0) >= 186;
        Layout {
            gat_name: v >= (1, 4),
            release: false,
            extra_list: v >= (2, 7),
            model_flag: late_26 || v >= (2, 7),
            model_extra: v >= (2, 7),
            sound_cycle: v >= (2, 0),
        }
    }

    /// The fields other readers read differently for this version, in the
    /// order their alternatives are tried. Versions after [`super::NEWEST`]
    /// have none: they are tried with the newest layout only.
    pub fn disputed(major: u8, minor: u8) -> &'static [Field] {
        match (major, minor) {
            (1, 0..=4) => &[Field::GatName],
            (1, 9) | (2, 0) => &[Field::SoundCycle],
            (2, 4) => &[Field::Release],
            (2, 6) => &[Field::ModelFlag],
            (2, 7) => &[Field::ExtraList],
            _ => &[],
        }
    }

    /// The value of `field`.
    pub fn get(&self, field: Field) -> bool {
        match field {
            Field::GatName => self.gat_name,
            Field::Release => self.release,
            Field::ExtraList => self.extra_list,
            Field::ModelFlag => self.model_flag,
            Field::SoundCycle => self.sound_cycle,
        }
    }

    /// This layout with `field` flipped.
    pub fn flipped(mut self, field: Field) -> Layout {
        let v = !self.get(field);
        match field {
            Field::GatName => self.gat_name = v,
            Field::Release => self.release = v,
            Field::ExtraList => self.extra_list = v,
            Field::ModelFlag => self.model_flag = v,
            Field::SoundCycle => self.sound_cycle = v,
        }
        self
    }

    /// Every reading of the version, the expected one first, then each
    /// disputed field flipped (and, with several, every combination).
    pub fn candidates(major: u8, minor: u8, build: Option<u32>) -> Vec<Layout> {
        let expected = Layout::expected(major, minor, build);
        let disputed = Layout::disputed(major, minor);
        let mut out = vec![expected];
        for mask in 1u32..(1 << disputed.len()) {
            let mut l = expected;
            for (i, f) in disputed.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    l = l.flipped(*f);
                }
            }
            out.push(l);
        }
        out
    }

    /// How this reading differs from `other`, in words: "with the model byte
    /// after the block type", "without a cycle per sound and …".
    pub fn describe_against(&self, other: &Layout) -> String {
        let parts: Vec<&str> = [
            Field::GatName,
            Field::Release,
            Field::ExtraList,
            Field::ModelFlag,
            Field::SoundCycle,
        ]
        .into_iter()
        .filter(|f| self.get(*f) != other.get(*f))
        .map(|f| describe(f, self.get(f)))
        .collect();
        if parts.is_empty() {
            "in the same layout".into()
        } else {
            parts.join(" and ")
        }
    }
}

/// A field's reading in words.
pub fn describe(field: Field, present: bool) -> &'static str {
    match (field, present) {
        (Field::GatName, true) => "with a .gat name in the header",
        (Field::GatName, false) => "without a .gat name in the header",
        (Field::Release, true) => "with four bytes after the build number",
        (Field::Release, false) => "without bytes after the build number",
        (Field::ExtraList, true) => "with a counted list after the bounds",
        (Field::ExtraList, false) => "without a list after the bounds",
        (Field::ModelFlag, true) => "with a byte after each model's block type",
        (Field::ModelFlag, false) => "without a byte after each model's block type",
        (Field::SoundCycle, true) => "with a cycle interval per sound",
        (Field::SoundCycle, false) => "without a cycle interval per sound",
    }
}

/// "2.1", "2.6 build 197".
pub fn version_label(major: u8, minor: u8, build: Option<u32>) -> String {
    match build {
        Some(b) => format!("{major}.{minor} build {b}"),
        None => format!("{major}.{minor}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_readings_follow_the_research() {
        let e = Layout::expected;
        assert!(!e(1, 3, None).gat_name && e(1, 4, None).gat_name);
        assert!(!e(1, 9, None).sound_cycle && e(2, 0, None).sound_cycle);
        assert!(!e(2, 6, Some(185)).model_flag && e(2, 6, Some(186)).model_flag);
        let l27 = e(2, 7, Some(248));
        assert!(l27.model_flag && l27.model_extra && l27.extra_list);
        assert_eq!(e(2, 8, Some(300)), l27);
        assert!(!e(2, 4, Some(1)).release);
    }

    #[test]
    fn candidates_put_the_expected_reading_first_then_each_flip() {
        let c = Layout::candidates(2, 6, Some(197));
        assert_eq!(c.len(), 2);
        assert!(c[0].model_flag && !c[1].model_flag);
        assert_eq!(Layout::candidates(2, 1, None).len(), 1);
        assert_eq!(Layout::candidates(2, 9, Some(1)).len(), 1);
        assert_eq!(
            c[1].describe_against(&c[0]),
            "without a byte after each model's block type"
        );
    }
}
