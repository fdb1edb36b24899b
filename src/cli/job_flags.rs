//! `kiln bake --model FILE [job flags]`: one job without a recipe file.
//! The flags are named after the job's recipe keys and are turned into the
//! text of a one-job recipe, which goes through the same reader as any
//! recipe: the defaults, the checks and the messages are the recipe's.
//! `--print-recipe` shows that text.

use clap::Args;
use std::path::PathBuf;

/// The job keys as flags (docs/cli.md, "A bake without a recipe").
#[derive(Args, Default)]
pub struct JobFlags {
    /// Bake one job of this model without a recipe: the flags below are its recipe keys
    #[arg(long, value_name = "FILE", help_heading = "One job without a recipe")]
    pub model: Option<PathBuf>,
    /// The job's `name` (default: the model's file name without its extension)
    #[arg(
        long,
        value_name = "NAME",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    name: Option<String>,
    /// `output.dir`: the folder the job's files go to (default: out/NAME)
    #[arg(
        short = 'o',
        long = "output",
        value_name = "DIR",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    output: Option<String>,
    /// `data`: a folder searched for textures (repeatable)
    #[arg(
        long,
        value_name = "DIR",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    data: Vec<String>,
    /// `clips`: bake the model's animation of this name as a clip (repeatable); `all` for every animation in the file (glTF). Without it, `clip`
    #[arg(
        long,
        value_name = "NAME|all",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    clip: Vec<String>,
    /// `clip.fps` (or each `--clip`'s)
    #[arg(
        long,
        value_name = "FPS",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    fps: Option<String>,
    /// `clip.frames` (or each `--clip`'s)
    #[arg(
        long,
        value_name = "N",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    frames: Option<String>,
    /// `clip.start`, seconds (or each `--clip`'s)
    #[arg(
        long,
        value_name = "S",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    start: Option<String>,
    /// `clip.end`, seconds (or each `--clip`'s)
    #[arg(
        long,
        value_name = "S",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    end: Option<String>,
    /// `directions`: a count, or yaw degrees separated by commas (`0,90,180`)
    #[arg(
        long,
        value_name = "N|YAWS",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    directions: Option<String>,
    /// `pitch`, degrees
    #[arg(
        long,
        value_name = "DEG",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    pitch: Option<String>,
    /// `size`: WxH or N
    #[arg(
        long,
        value_name = "WxH",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    size: Option<String>,
    /// `background`: transparent, #rrggbb or #rrggbbaa
    #[arg(
        long,
        value_name = "COLOUR",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    background: Option<String>,
    /// `antialias`: 1..=4
    #[arg(
        long,
        value_name = "N",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    antialias: Option<String>,
    /// `pose`: rest or bind
    #[arg(
        long,
        value_name = "POSE",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    pose: Option<String>,
    /// `root_motion`: in_place or keep
    #[arg(
        long = "root-motion",
        value_name = "MODE",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    root_motion: Option<String>,
    /// `scene` (glTF): a scene's name or index
    #[arg(
        long,
        value_name = "SCENE",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    scene: Option<String>,
    /// `metadata`: a metadata format (repeatable)
    #[arg(
        long,
        value_name = "FORMAT",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    metadata: Vec<String>,
    /// `output.gif`: a GIF per clip and direction, e.g. "{name}_{dir}.gif"
    #[arg(
        long,
        value_name = "TEMPLATE",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    gif: Option<String>,
    /// `output.apng`: an animated PNG per clip and direction
    #[arg(
        long,
        value_name = "TEMPLATE",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    apng: Option<String>,
    /// Print the recipe these flags make, and bake nothing
    #[arg(
        long = "print-recipe",
        requires = "model",
        help_heading = "One job without a recipe"
    )]
    pub print_recipe: bool,
}

/// A string as YAML reads it back unchanged: JSON's quoting is YAML's.
fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// A number or keyword as written, so the recipe reads it as it would read
/// it in a file; anything else quoted, so it cannot add YAML of its own
/// (the key then reports its usual message for a wrong value).
fn plain(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b));
    if safe {
        s.to_string()
    } else {
        quoted(s)
    }
}

impl JobFlags {
    /// The one-job recipe the flags make.
    pub fn recipe(&self) -> Option<String> {
        let model = self.model.as_ref()?;
        let model_text = model.to_string_lossy();
        let name = match &self.name {
            Some(n) => n.clone(),
            None => model
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "job".to_string()),
        };
        let mut y = String::from(
            "# What `kiln bake --model` bakes; `kiln bake` takes it as a recipe.\njobs:\n",
        );
        y.push_str(&format!("  - name: {}\n", quoted(&name)));
        y.push_str(&format!("    model: {}\n", quoted(&model_text)));
        if !self.data.is_empty() {
            let list: Vec<String> = self.data.iter().map(|d| quoted(d)).collect();
            y.push_str(&format!("    data: [{}]\n", list.join(", ")));
        }
        let mut timing = Vec::new();
        for (key, v) in [
            ("start", &self.start),
            ("end", &self.end),
            ("fps", &self.fps),
            ("frames", &self.frames),
        ] {
            if let Some(v) = v {
                timing.push(format!("{key}: {}", plain(v)));
            }
        }
        // `all` takes the file's own timing: given timing too, the recipe
        // says a job cannot have both `clip` and `clips`.
        if self.clip.len() == 1 && self.clip[0] == "all" {
            y.push_str("    clips: all\n");
            if !timing.is_empty() {
                y.push_str(&format!("    clip: {{ {} }}\n", timing.join(", ")));
            }
        } else if !self.clip.is_empty() {
            y.push_str("    clips:\n");
            for c in &self.clip {
                let mut keys = vec![
                    format!("name: {}", quoted(c)),
                    format!("embedded: {}", quoted(c)),
                ];
                keys.extend(timing.iter().cloned());
                y.push_str(&format!("      - {{ {} }}\n", keys.join(", ")));
            }
        } else if !timing.is_empty() {
            y.push_str(&format!("    clip: {{ {} }}\n", timing.join(", ")));
        }
        if let Some(d) = &self.directions {
            if d.contains(',') {
                let yaws: Vec<String> = d.split(',').map(|v| plain(v.trim())).collect();
                y.push_str(&format!("    directions: [{}]\n", yaws.join(", ")));
            } else {
                y.push_str(&format!("    directions: {}\n", plain(d)));
            }
        }
        for (key, v) in [
            ("pitch", &self.pitch),
            ("size", &self.size),
            ("antialias", &self.antialias),
            ("pose", &self.pose),
            ("root_motion", &self.root_motion),
        ] {
            if let Some(v) = v {
                y.push_str(&format!("    {key}: {}\n", plain(v)));
            }
        }
        for (key, v) in [("background", &self.background), ("scene", &self.scene)] {
            if let Some(v) = v {
                y.push_str(&format!("    {key}: {}\n", quoted(v)));
            }
        }
        if !self.metadata.is_empty() {
            let list: Vec<String> = self.metadata.iter().map(|m| plain(m)).collect();
            y.push_str(&format!("    metadata: [{}]\n", list.join(", ")));
        }
        let mut output = Vec::new();
        for (key, v) in [
            ("dir", &self.output),
            ("gif", &self.gif),
            ("apng", &self.apng),
        ] {
            if let Some(v) = v {
                output.push(format!("{key}: {}", quoted(v)));
            }
        }
        if !output.is_empty() {
            y.push_str(&format!("    output: {{ {} }}\n", output.join(", ")));
        }
        Some(y)
    }
}
