//! Models as the library hands them out: loaded from a [`ModelSpec`], posed
//! by animation files, rendered and exported — what `kiln render` and
//! `kiln export` do, for a program or a test.

use crate::error::{Error, Result};
use crate::export::gltf::{animated_glb_bytes, ClipInput, GltfReport};
use crate::load;
use crate::look::Look;
use crate::render::{fit, pivot, pose_frames, render_clip, render_frames, ClipPlan, ViewSpec};
use crate::scene;
use crate::scene::clip::Clip;
use crate::source::{Lookup, SourceRef};
use crate::spec::{FileRef, ModelSpec, RootMotion};
use std::path::{Path, PathBuf};

/// A rendered image and where the model's origin lands in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sprite {
    /// Straight RGBA.
    pub image: image::RgbaImage,
    /// The model's origin as fractions of the image's width and height from
    /// its top-left corner: the anchor an engine places the sprite by.
    pub pivot: [f32; 2],
}

/// Which pass [`Model::render_pass`] draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassView {
    /// The sprite normal map.
    Normal,
    /// The depth map.
    Depth,
    /// Flat colours per material or node.
    Id(crate::look::passes::IdBy),
}

/// One animation of an animated glTF export ([`Model::export_animated`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportClip {
    /// The glTF animation's name (what Blender calls the action, Godot
    /// the animation); unique within one export.
    pub name: String,
    /// The animation file that drives it (Grimrock `.animation`, Arma
    /// `.rtm`); `None` plays the model's own animation (RSM), or holds its
    /// rest pose.
    pub animation: Option<FileRef>,
    /// Which of the model file's own animations drives it (glTF), by name
    /// or index, when `animation` is `None`; `None` plays the first.
    pub embedded: Option<String>,
    /// Which stretch of the animation: a range (its end defaulting to the
    /// animation's end; a range past the end repeats the loop) or a single
    /// pose. The range's `fps`/`frames` are not used: glTF keeps the
    /// animation's own keys.
    pub clip: Clip,
}

/// A loaded model: its geometry, materials, textures and animation,
/// resolved from any format kiln reads.
#[derive(Debug, Clone)]
pub struct Model {
    scene: scene::Model,
    spec: ModelSpec,
    sources: Vec<SourceRef>,
    inputs: Vec<PathBuf>,
}

impl Model {
    /// Loads `spec`'s model: its `data` folders are searched first for what
    /// the model names, then the model's own tree.
    pub fn load(spec: &ModelSpec) -> Result<Model> {
        Model::load_from(spec, &[])
    }

    /// As [`Model::load`], also searching `sources` (after `spec.data`):
    /// archives, in-memory files.
    pub fn load_from(spec: &ModelSpec, sources: &[SourceRef]) -> Result<Model> {
        let lookup = Lookup::with_folders(&spec.data, sources)?;
        let scene = load::load_model(spec, &lookup)?;
        Ok(Model {
            scene,
            spec: spec.clone(),
            sources: sources.to_vec(),
            inputs: lookup.reads(),
        })
    }

    /// A copy posed by an animation file (Grimrock `.animation`, Arma
    /// `.rtm`), read with the spec's animation settings (duration,
    /// skeleton, root motion) from the same places as the model.
    pub fn animated(&self, animation: impl Into<FileRef>) -> Result<Model> {
        let lookup = Lookup::with_folders(&self.spec.data, &self.sources)?;
        let scene = load::animate(
            &self.scene,
            &animation.into(),
            &self.spec.animation,
            &lookup,
        )?;
        let mut inputs = self.inputs.clone();
        inputs.extend(lookup.reads());
        inputs.sort();
        inputs.dedup();
        Ok(Model {
            scene,
            spec: self.spec.clone(),
            sources: self.sources.clone(),
            inputs,
        })
    }

    /// A copy playing another of the animations the model file itself
    /// holds (glTF): `wanted` is its name (exact, then ignoring case) or its
    /// index. The model as loaded plays the first.
    pub fn embedded(&self, wanted: &str) -> Result<Model> {
        Ok(Model {
            scene: load::embedded(&self.scene, wanted)?,
            spec: self.spec.clone(),
            sources: self.sources.clone(),
            inputs: self.inputs.clone(),
        })
    }

    /// The names of the animations the model file itself holds (glTF), in
    /// file order (a name may be empty).
    pub fn embedded_names(&self) -> Vec<String> {
        self.scene
            .extras
            .takes
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// The model's name (from its file).
    pub fn name(&self) -> &str {
        &self.scene.name
    }

    /// The file it was loaded from, as named in messages.
    pub fn source(&self) -> &Path {
        &self.scene.source
    }

    /// Loop period in seconds; 0 for a model that does not move.
    pub fn duration(&self) -> f32 {
        self.scene.duration
    }

    /// The file's own frame rate (RSM2: its `fps`; RSM1: 30 per second).
    pub fn frame_rate(&self) -> f32 {
        self.scene.frame_rate
    }

    /// The time of frame `frame` at the model's own frame rate, in seconds.
    pub fn frame_time(&self, frame: u32) -> f32 {
        frame as f32 / self.scene.frame_rate.max(1e-3)
    }

    /// What the user should know: missing textures, clamped indices,
    /// trailing bytes, unmatched tracks.
    pub fn warnings(&self) -> &[String] {
        &self.scene.warnings
    }

    /// Every file and folder read to load it, sorted.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// Renders the model posed at `time` seconds from `yaw` degrees (0 looks
    /// at its front, positive turns the camera counter-clockwise seen from
    /// above), the camera framed on that pose. With the spec's
    /// `root_motion` in place (the default), a clip's root travel is taken
    /// out: the figure is drawn where its root was at time 0.
    pub fn render(&self, time: f32, yaw: f32, view: &ViewSpec) -> Result<Sprite> {
        view.check()?;
        let plan = ClipPlan {
            times: vec![time],
            yaws: vec![yaw],
            view: *view,
        };
        if self.root().is_none() {
            let clip = render_clip(&self.scene, &plan, &|| {});
            let image = clip
                .images
                .into_iter()
                .next()
                .and_then(|row| row.into_iter().next())
                .ok_or_else(|| crate::Error::Other("no image rendered".into()))?;
            return Ok(Sprite {
                image,
                pivot: clip.pivot,
            });
        }
        let posed = self.posed_at(time);
        let cameras = fit(&[posed.as_slice()], &plan);
        let image = render_frames(&self.scene, &posed, &cameras, &plan, &|| {})
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
            .ok_or_else(|| crate::Error::Other("no image rendered".into()))?;
        Ok(Sprite {
            image,
            pivot: pivot(&cameras),
        })
    }

    /// The node whose travel is taken out of the frames (`root_motion:
    /// in_place`), if the animation has one.
    fn root(&self) -> Option<usize> {
        match self.spec.animation.root_motion {
            RootMotion::InPlace => scene::root_motion::root_node(&self.scene),
            RootMotion::Keep => None,
        }
    }

    /// The model posed at `time`, in place when its root motion is.
    fn posed_at(&self, time: f32) -> Vec<crate::scene::PosedModel> {
        let mut posed = pose_frames(&self.scene, &[time]);
        if let Some(root) = self.root() {
            scene::root_motion::take_out(&self.scene, root, &mut posed, &[time]);
        }
        posed
    }

    /// One frame of a pass, framed as [`Model::render`] frames the colour
    /// image: camera-space normals, depth (a 16-bit value split over red
    /// and green, nearest = 65535, over the depth this frame spans;
    /// [`crate::encode_depth_png`] writes it as grey), or flat ID colours
    /// (see [`Model::id_legend`]). Depth and ID take one sample a pixel.
    pub fn render_pass(
        &self,
        time: f32,
        yaw: f32,
        view: &ViewSpec,
        pass: PassView,
    ) -> Result<Sprite> {
        use crate::look::passes::{self, PassKind};
        view.check()?;
        let plan = ClipPlan {
            times: vec![time],
            yaws: vec![yaw],
            view: *view,
        };
        let posed = self.posed_at(time);
        let cameras = fit(&[posed.as_slice()], &plan);
        let kind = match pass {
            PassView::Normal => PassKind::Normal,
            PassView::Depth => {
                let (near, far) = passes::depth_range(&[posed.as_slice()], &cameras);
                PassKind::Depth { near, far }
            }
            PassView::Id(by) => PassKind::Id(by),
        };
        let image = passes::render_frames(&self.scene, &posed, &cameras, &plan, kind)
            .into_iter()
            .flatten()
            .next()
            .ok_or_else(|| crate::Error::Other("no image rendered".into()))?;
        Ok(Sprite {
            image,
            pivot: pivot(&cameras),
        })
    }

    /// The ID pass's legend as JSON: the colour and name of every material
    /// or node, as a recipe's `_id_legend.json`.
    pub fn id_legend(&self, by: crate::look::passes::IdBy) -> String {
        crate::look::passes::id_legend(&self.scene, by)
    }

    /// As [`Model::render`], with `look` applied: the framing leaves room
    /// for its outline, shadows and drop shadow, and a palette of `colors: N` is
    /// chosen from this one image. A palette file is read like the
    /// model's other files. A look out of range ([`Look::check`]) is a
    /// usage error.
    pub fn render_with_look(
        &self,
        time: f32,
        yaw: f32,
        view: &ViewSpec,
        look: &Look,
    ) -> Result<Sprite> {
        view.check()?;
        look.check()?;
        let mut look = look.clone();
        let lookup = Lookup::with_folders(&self.spec.data, &self.sources)?;
        look.load_palette(|f| lookup.read_named(f).map(|(bytes, _)| bytes))?;
        let mut v = *view;
        v.framing = look.framing(v.framing, v.width, v.height);
        let plan = ClipPlan {
            times: vec![time],
            yaws: vec![yaw],
            view: v,
        };
        let posed = self.posed_at(time);
        let sets = [posed.as_slice()];
        let cameras = crate::look::frames::fit(&sets, &plan, &look);
        let ground = crate::look::frames::ground_of(&sets);
        let image = crate::look::frames::render_frames(
            &self.scene,
            &posed,
            &cameras,
            &plan,
            &look,
            ground,
            &|| {},
        )
        .into_iter()
        .flatten()
        .next()
        .ok_or_else(|| crate::Error::Other("no image rendered".into()))?;
        let mut sprite = Sprite {
            image,
            pivot: crate::render::pivot(&cameras),
        };
        if let Some(p) = look.job_palette(&[&sprite.image]) {
            look.mapper(&p).map(&mut sprite.image);
        }
        Ok(sprite)
    }

    /// Writes the model posed at `time` seconds as glTF binary (`.glb`) or
    /// Wavefront OBJ (`.obj` with its `.mtl` and PNG textures), chosen by
    /// the extension of `path`. With the spec's `root_motion` in place (the
    /// default) the root's travel is taken out, as [`Model::render`] draws it.
    pub fn export(&self, time: f32, path: &Path) -> Result<()> {
        let posed = self
            .posed_at(time)
            .into_iter()
            .next()
            .ok_or_else(|| Error::Other("no pose".into()))?;
        crate::export::export(&self.scene, &posed, path)
    }

    /// Writes the model with its animation as glTF binary (`.glb`): the
    /// node tree, skins, textures, and one glTF animation per clip. The
    /// report says where keys were added to follow the format's
    /// interpolation and what glTF could not hold.
    pub fn export_animated(&self, clips: &[ExportClip], path: &Path) -> Result<GltfReport> {
        let is_glb = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
        if !is_glb {
            return Err(Error::Usage(format!(
                "{}: an animated export is glTF binary; the output must end in .glb",
                path.display()
            )));
        }
        let (bytes, report) = self.animated_glb(clips)?;
        crate::output::write_atomic(path, &bytes)?;
        Ok(report)
    }

    /// The bytes [`Model::export_animated`] writes.
    pub(crate) fn animated_glb(&self, clips: &[ExportClip]) -> Result<(Vec<u8>, GltfReport)> {
        let lookup = Lookup::with_folders(&self.spec.data, &self.sources)?;
        animated_glb(&self.scene, &self.spec, clips, &lookup)
    }

    /// The scene form, for kiln's own tests and tools (through
    /// `kiln::internals::scene_of`).
    pub(crate) fn scene(&self) -> &scene::Model {
        &self.scene
    }
}

/// `model` with each clip's animation file applied (their bones bound
/// together), as glTF bytes with one animation per clip.
pub(crate) fn animated_glb(
    model: &scene::Model,
    spec: &ModelSpec,
    clips: &[ExportClip],
    lookup: &Lookup,
) -> Result<(Vec<u8>, GltfReport)> {
    if clips.is_empty() {
        return Err(Error::Usage(
            "an animated export needs at least one clip".into(),
        ));
    }
    for (i, c) in clips.iter().enumerate() {
        if c.name.is_empty() {
            return Err(Error::Usage(format!("clip {i} has no name")));
        }
        if clips[..i].iter().any(|d| d.name == c.name) {
            return Err(Error::Usage(format!(
                "two clips are named '{}'; glTF animation names must differ",
                c.name
            )));
        }
    }
    let files: Vec<Option<&FileRef>> = clips.iter().map(|c| c.animation.as_ref()).collect();
    let mut models = load::animate_together(model, &files, &spec.animation, lookup)?;
    for (m, c) in models.iter_mut().zip(clips) {
        if let (None, Some(e)) = (&c.animation, &c.embedded) {
            *m = load::embedded(m, e)?;
        }
    }
    let pinned: Vec<(scene::Model, Option<serde_json::Value>)> = models
        .iter()
        .map(|m| in_place(m, spec.animation.root_motion))
        .collect();
    let mut inputs = Vec::with_capacity(clips.len());
    for (c, (m, root_motion)) in clips.iter().zip(&pinned) {
        let (start, length) = window(c, m, spec)?;
        inputs.push(ClipInput {
            name: c.name.clone(),
            model: m,
            start,
            length,
            source: c.animation.as_ref().map(|f| f.written.clone()),
            root_motion: root_motion.clone(),
        });
    }
    let (bytes, mut report) = animated_glb_bytes(&inputs)?;
    let mut notes: Vec<String> = Vec::new();
    for m in &models {
        for w in &m.warnings {
            if !model.warnings.contains(w) && !notes.contains(w) {
                notes.push(w.clone());
            }
        }
    }
    notes.append(&mut report.notes);
    report.notes = notes;
    Ok((bytes, report))
}

/// A clip's model as an animated export writes it: with `root_motion` in
/// place and a root that travels ([`scene::root_motion::root_node`]), the
/// travel taken out of the root's keys, and handed on as the animation's
/// `extras.rootMotion` — the root's name, the key times and the sideways
/// offset removed at each (metres, glTF's frame), what an engine moves
/// the object by, as sprite metadata hands over the pixels a frame moves.
fn in_place(m: &scene::Model, mode: RootMotion) -> (scene::Model, Option<serde_json::Value>) {
    let group = match mode {
        RootMotion::InPlace => scene::root_motion::root_group(m),
        RootMotion::Keep => None,
    };
    let Some((root, group)) = group else {
        return (m.clone(), None);
    };
    let (pinned, removed) = scene::root_motion::pin(m, root, &group);
    let round = |x: f32| ((x as f64) * 1e6).round() / 1e6;
    let extras = serde_json::json!({
        "node": m.nodes[root].name,
        "times": removed.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        "translation": removed
            .iter()
            .map(|(_, v)| [round(v.x), round(v.y), round(v.z)])
            .collect::<Vec<_>>(),
    });
    (pinned, Some(extras))
}

/// Where a clip starts in the animation and how long it lasts: a range ends
/// at the animation's end unless it says otherwise (`duration` standing in
/// for a model that does not know its length, as for sprite sheets).
fn window(c: &ExportClip, m: &scene::Model, spec: &ModelSpec) -> Result<(f32, f32)> {
    match c.clip {
        Clip::Still { time } => Ok((time, 0.0)),
        Clip::Range { start, end, .. } => {
            let length = match spec.animation.duration {
                Some(d) if m.duration <= 0.0 => d,
                _ => m.duration,
            };
            let end = end.unwrap_or(length.max(0.0));
            if !(start.is_finite() && end.is_finite()) || start < 0.0 || end < start {
                return Err(Error::Usage(format!(
                    "clip '{}' starts at {start} s but the animation ends at {end} s",
                    c.name
                )));
            }
            Ok((start, end - start))
        }
    }
}
