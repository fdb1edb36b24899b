//! `kiln export`: the model posed at one instant (glTF or OBJ), or with
//! `--clip` its whole animation as glTF.

use super::model_args::{warn, ModelArgs, TimeArgs};
use clap::Args;
use kiln::{Clip, Error, ExportClip, FileRef, Model, Step};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Output file: .glb or .obj
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    time: TimeArgs,
    /// Write the whole animation as glTF (.glb): the node tree, skins and one glTF animation per --animation file (or the model's own animation)
    #[arg(long, conflicts_with_all = ["time", "frame"])]
    clip: bool,
    /// With --clip: the animations' names, one per --animation in order (default: each file's name, or the model's)
    #[arg(long = "clip-name", value_name = "NAME", requires = "clip")]
    clip_names: Vec<String>,
}

pub fn run(a: ExportArgs) -> Result<(), Error> {
    if a.clip {
        return export_clips(&a);
    }
    let model = a.model.load()?;
    let t = a.time.of(&model);
    model.export(t, &a.output)?;
    say!("kiln: wrote {} (t = {t:.3} s)", a.output.display());
    Ok(())
}

/// `kiln export --clip`: the model's node tree, skins and one glTF
/// animation per `--animation` file (or its own animation).
fn export_clips(a: &ExportArgs) -> Result<(), Error> {
    let mut model = Model::load(&a.model.spec())?;
    if let Some(e) = &a.model.embedded {
        model = model.embedded(e)?;
    }
    warn(&model);
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let files: Vec<Option<&PathBuf>> = if a.model.animation.is_empty() {
        if model.duration() <= 0.0 {
            return Err(Error::Usage(format!(
                "{} has no animation of its own; give --animation FILE (a Grimrock .animation, an Arma .rtm)",
                a.model.model.display()
            )));
        }
        vec![None]
    } else {
        a.model.animation.iter().map(Some).collect()
    };
    if !a.clip_names.is_empty() && a.clip_names.len() != files.len() {
        return Err(Error::Usage(format!(
            "{} --clip-name for {} clip(s); give one per --animation, in order",
            a.clip_names.len(),
            files.len()
        )));
    }
    let clips: Vec<ExportClip> = files
        .iter()
        .enumerate()
        .map(|(i, f)| ExportClip {
            name: a
                .clip_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| stem(f.map_or(&a.model.model, |p| p.as_path()))),
            animation: f.map(|p| FileRef::from(p.as_path())),
            embedded: None,
            clip: Clip::Range {
                start: 0.0,
                end: None,
                step: Step::Fps(model.frame_rate().max(1e-3)),
            },
        })
        .collect();
    let report = model.export_animated(&clips, &a.output)?;
    for n in &report.notes {
        say!("kiln: note: {n}");
    }
    let list: Vec<String> = report
        .animations
        .iter()
        .map(|c| {
            format!(
                "{} ({:.3} s, {} channels, {} keys)",
                c.name, c.seconds, c.channels, c.keys
            )
        })
        .collect();
    say!(
        "kiln: wrote {} with {} animation(s): {}",
        a.output.display(),
        report.animations.len(),
        list.join(", ")
    );
    Ok(())
}
