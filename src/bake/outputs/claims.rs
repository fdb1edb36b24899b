//! No two jobs of a bake may write one file: checked over every output of
//! every job and map of every recipe, with each output folder resolved
//! through symbolic links, before anything is baked. (A recipe already
//! checks its own jobs lexically, with line and column.)

use crate::bake::recipe::pattern::{job_patterns, map_patterns, FilePattern, PatternIndex};
use crate::bake::recipe::{Job, MapJob};
use crate::error::{Error, Result};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// Every output claimed so far and who claims it: jobs and maps are added
/// one at a time (a catalogue's instances are resolved, claimed and
/// dropped in turn); the first file two of them can write refuses the
/// bake.
#[derive(Default)]
pub struct Claims {
    /// Each claim's (who, where): one pair per job or map, shared by its
    /// claims.
    claimed: PatternIndex<(Rc<str>, Rc<str>)>,
    /// The last `recipe:line` seen: a catalogue's instances share theirs.
    at: Option<Rc<str>>,
}

impl Claims {
    fn add(
        &mut self,
        who: &Rc<str>,
        at: &Rc<str>,
        what: String,
        pattern: FilePattern,
    ) -> Result<()> {
        if let Some((name, (other, other_at))) = self
            .claimed
            .first_overlap(&pattern, |(other, _)| other == who)
        {
            return Err(Error::Usage(format!(
                "{at}: {who}: {what} can write `{name}`, which {other} ({other_at}) also writes"
            )));
        }
        self.claimed.push(pattern, (who.clone(), at.clone()));
        Ok(())
    }

    fn at(&mut self, recipe: &Path, line: u64) -> Rc<str> {
        let text = format!("{}:{line}", recipe.display());
        match &self.at {
            Some(at) if **at == *text => at.clone(),
            _ => self.at.insert(text.into()).clone(),
        }
    }

    /// Claims job `j`'s outputs.
    pub fn job(&mut self, j: &Job) -> Result<()> {
        let dir = resolved(&j.output.dir);
        let at = self.at(&j.recipe, j.line);
        let who: Rc<str> = format!("job '{}'", j.name).into();
        for (key, p) in job_patterns(j, &dir) {
            self.add(&who, &at, format!("`output.{key}`"), p)?;
        }
        Ok(())
    }

    /// Claims map `m`'s views.
    pub fn map(&mut self, m: &MapJob) -> Result<()> {
        let dir = resolved(&m.dir);
        let at = self.at(&m.recipe, m.line);
        let who: Rc<str> = format!("map '{}'", m.name).into();
        for (view, p) in map_patterns(m, &dir) {
            self.add(&who, &at, format!("view '{view}'"), p)?;
        }
        Ok(())
    }
}

/// `dir` with its deepest existing folder resolved through links (the rest
/// does not exist yet, so it cannot be a link).
pub fn resolved(dir: &Path) -> PathBuf {
    let dir = crate::paths::normalize(dir);
    let parts: Vec<Component> = dir.components().collect();
    for cut in (0..=parts.len()).rev() {
        let head: PathBuf = parts[..cut].iter().collect();
        let head = if head.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            head
        };
        if let Ok(real) = std::fs::canonicalize(&head) {
            let mut out = real;
            for c in &parts[cut..] {
                out.push(c.as_os_str());
            }
            return out;
        }
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_reached_through_a_link_is_the_same_folder() {
        let root = std::env::temp_dir().join(format!("kiln-claims-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("real")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
            assert_eq!(
                resolved(&root.join("link/sub")),
                resolved(&root.join("real/sub"))
            );
        }
        assert_eq!(
            resolved(&root.join("real/a/../b")),
            std::fs::canonicalize(root.join("real")).unwrap().join("b")
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
