//! An RSW map lowered into one scene: the ground, every model instance placed
//! as the client places it, marked placeholders where a model is missing,
//! and the map's sun.

use crate::error::{Error, Result};
use crate::formats::ragnarok::{find_map_file, ground_places, model_texture};
use crate::formats::rsm::lower::lower as lower_rsm;
use crate::formats::{gnd, rsm, rsw};
use crate::map::ground::Ground;
use crate::raster::Light;
use crate::scene::{self, Model};
use crate::source::{Found, Layout, Lookup, Tree};
use crate::spec::FileRef;
use glam::{Mat3, Mat4, Vec3};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// kiln world = `D · RO`: a half turn about X (Y down → Y up, rows north).
pub const D: Mat4 = Mat4::from_cols_array(&[
    1.0, 0.0, 0.0, 0.0, //
    0.0, -1.0, 0.0, 0.0, //
    0.0, 0.0, -1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// Placeholder box size in world units (a tile is 10): big enough to see at
/// one pixel per tile, small enough not to hide the neighbours.
pub const PLACEHOLDER_HALF: f32 = 3.5;
/// Placeholder box height in world units.
pub const PLACEHOLDER_HEIGHT: f32 = 8.0;
/// Placeholder colour: a saturated red that no Ragnarok ground uses, with a
/// white outline on every face so it reads as "marker", not as a prop.
pub const PLACEHOLDER_RED: [u8; 4] = [230, 30, 40, 255];

/// One distinct model file the map uses, loaded once for all its instances.
#[derive(Debug, Clone)]
pub struct MapModel {
    /// The name as the map gives it.
    pub file: String,
    /// `None` when the file is missing or unreadable: drawn as a placeholder.
    pub model: Option<Arc<Model>>,
    /// Why a file that was found could not be used.
    pub error: Option<String>,
    /// From the model's display space to its client space (undoes kiln's own
    /// centering where the client does not centre: RSM2).
    pub to_client: Mat4,
    /// Bounds over the whole animation in display space, for culling.
    pub bounds: (Vec3, Vec3),
}

/// One model placed on the map.
#[derive(Debug, Clone)]
pub struct Instance {
    /// Index into [`MapScene::models`]; the placeholder when that model is `None`.
    pub model: usize,
    /// Model display space → kiln world (for a placeholder: box space → world).
    pub world: Mat4,
    /// The instance origin in kiln world.
    pub origin: Vec3,
    /// Playback rate (`animSpeed`; 1 when unset or not positive).
    pub speed: f32,
    /// World bounds over the animation, for culling.
    pub bounds: (Vec3, Vec3),
    /// The model file is missing: the placeholder stands in.
    pub missing: bool,
}

/// A map loaded for drawing: ground, water, models and their instances, light.
#[derive(Debug, Clone)]
pub struct MapScene {
    /// The RSW's version, `major.minor`.
    pub version: String,
    /// The ground.
    pub ground: Ground,
    /// Water surface chunks (empty when no ground dips below the level).
    pub water: Vec<super::water::WaterChunk>,
    /// Every model file the map names, once; `None` where missing.
    pub models: Vec<MapModel>,
    /// Every placed model, in RSW order.
    pub instances: Vec<Instance>,
    /// The box drawn for missing models.
    pub placeholder: Arc<Model>,
    /// The map's sun and ambient light.
    pub light: Light,
    /// Longest model loop among instances, in map seconds (0 when nothing moves).
    pub duration: f32,
    /// Model files not found or unreadable, once each, in first-use order.
    pub missing_models: Vec<String>,
    /// Ground textures not found, once each.
    pub missing_textures: Vec<String>,
    /// What the user should know.
    pub warnings: Vec<String>,
}

impl MapScene {
    /// Loads the map `rsw` searching the folders `data` first (in order),
    /// then the map's own tree (for kiln's own tests and benchmarks; the
    /// library's users have [`super::Map`]).
    pub fn open(rsw: impl Into<FileRef>, data: &[PathBuf]) -> Result<MapScene> {
        MapScene::load(&rsw.into(), &Lookup::with_folders(data, &[])?)
    }

    /// Loads the map `rsw`, its ground and every model it names (each file
    /// once): the caller's sources first, then the map's own tree.
    pub(crate) fn load(rsw: &FileRef, lookup: &Lookup) -> Result<MapScene> {
        let (bytes, origin) = lookup.read_named(rsw)?;
        let rsw_path = origin.name();
        let tree = origin.tree(Layout::RAGNAROK_MAP);
        let rsw = rsw::parse(&bytes, &rsw_path)?;
        let gnd_name = rsw.gnd.bytes();
        let gnd_found = find_map_file(lookup, &tree, "", gnd_name).ok_or_else(|| {
            Error::Usage(format!(
                "{}: ground file \"{}\" not found (looked in {})",
                rsw_path.display(),
                rsw.gnd.text,
                ground_places(lookup, &tree)
            ))
        })?;
        let gnd_path = gnd_found.entry.location.clone();
        let gnd = gnd::parse(&lookup.read(&gnd_found)?, &gnd_path)?;
        // The ground asks by decoded name; look files up by the stored bytes.
        let find_texture = |name: &str| {
            let raw = gnd
                .textures
                .iter()
                .position(|t| t == name)
                .and_then(|i| gnd.texture_raw.get(i))
                .map(|r| crate::text::until_nul(r).to_vec())
                .unwrap_or_else(|| name.as_bytes().to_vec());
            find_map_file(lookup, &tree, "texture", &raw)
                .map(|f| crate::formats::texture::read_found(lookup, &f))
        };
        let ground = Ground::build(&gnd, &gnd_path, &find_texture);
        let water = super::water::build(&gnd, rsw.water.as_ref().map(|w| w.level));
        let half = Vec3::new(
            gnd.scale * gnd.width as f32 / 2.0,
            0.0,
            gnd.scale * gnd.height as f32 / 2.0,
        );

        // Distinct model files in first-use order, keyed case-insensitively
        // as the client's file system is.
        let mut keys: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let mut uses: Vec<usize> = Vec::new();
        for inst in rsw.models() {
            let raw = inst.file.bytes().to_vec();
            let key: Vec<u8> = raw
                .iter()
                .map(|b| {
                    if *b == b'/' {
                        b'\\'
                    } else {
                        b.to_ascii_lowercase()
                    }
                })
                .collect();
            let next = files.len();
            let id = *keys.entry(key).or_insert(next);
            if id == next {
                files.push((inst.file.text.clone(), raw));
            }
            uses.push(id);
        }
        let models: Vec<MapModel> = files
            .par_iter()
            .map(|(name, raw)| {
                load_map_model(name, find_map_file(lookup, &tree, "model", raw), lookup)
            })
            .collect();

        let mut warnings = rsw.warnings.clone();
        warnings.extend(gnd.warnings.iter().cloned());
        warnings.extend(ground.warnings.iter().cloned());
        let mut missing_models = Vec::new();
        for m in &models {
            match &m.model {
                None => match &m.error {
                    Some(e) => warnings.push(format!(
                        "model \"{}\" could not be read, drawn as a placeholder: {e}",
                        m.file
                    )),
                    None => missing_models.push(m.file.clone()),
                },
                Some(model) => {
                    for w in &model.warnings {
                        if !warnings.contains(w) {
                            warnings.push(w.clone());
                        }
                    }
                }
            }
        }

        let placeholder = Arc::new(placeholder_box());
        let placeholder_bounds = (
            Vec3::new(-PLACEHOLDER_HALF, 0.0, -PLACEHOLDER_HALF),
            Vec3::new(PLACEHOLDER_HALF, PLACEHOLDER_HEIGHT, PLACEHOLDER_HALF),
        );
        let mut instances = Vec::with_capacity(uses.len());
        let mut duration = 0.0f32;
        for (inst, &mi) in rsw.models().zip(&uses) {
            let origin_ro = Vec3::from_array(inst.position) + half;
            let origin = D.transform_point3(origin_ro);
            let speed = if inst.anim_speed.is_finite() && inst.anim_speed > 0.0 {
                inst.anim_speed
            } else {
                1.0
            };
            let m = &models[mi];
            let (world, local_bounds) = match &m.model {
                Some(model) => {
                    let r = inst.rotation.map(f32::to_radians);
                    let place = Mat4::from_translation(origin_ro)
                        * Mat4::from_rotation_z(r[2])
                        * Mat4::from_rotation_x(r[0])
                        * Mat4::from_rotation_y(r[1])
                        * Mat4::from_scale(Vec3::from_array(inst.scale));
                    if model.duration > 0.0 {
                        duration = duration.max(model.duration / speed);
                    }
                    (D * place * D * m.to_client, m.bounds)
                }
                // The missing model's size, tilt and height offset are
                // unknown (real maps sink foundations 30 units and stack
                // props on other models), so the box keeps a readable size,
                // stands upright and stands on the ground under the origin.
                None => {
                    let base = ground.height_at(origin.x, origin.z).unwrap_or(origin.y);
                    (
                        Mat4::from_translation(Vec3::new(origin.x, base, origin.z))
                            * Mat4::from_rotation_y(-inst.rotation[1].to_radians()),
                        placeholder_bounds,
                    )
                }
            };
            instances.push(Instance {
                model: mi,
                world,
                origin,
                speed,
                bounds: transform_bounds(&world, local_bounds),
                missing: m.model.is_none(),
            });
        }

        Ok(MapScene {
            version: rsw.version_string(),
            missing_textures: ground.missing.clone(),
            ground,
            water,
            models,
            instances,
            placeholder,
            light: sun(rsw.light.as_ref()),
            duration,
            missing_models,
            warnings,
        })
    }

    /// The model an instance draws (its own, or the placeholder box).
    pub fn model_of(&self, inst: &Instance) -> &Model {
        self.models
            .get(inst.model)
            .and_then(|m| m.model.as_deref())
            .unwrap_or(&self.placeholder)
    }

    /// Bounds of everything drawable: ground and instances.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let (mut lo, mut hi) = self.ground.bounds();
        for w in &self.water {
            lo = lo.min(w.min);
            hi = hi.max(w.max);
        }
        for i in &self.instances {
            lo = lo.min(i.bounds.0);
            hi = hi.max(i.bounds.1);
        }
        (lo, hi)
    }

    /// Every line a user should read once: missing models and textures, then
    /// the other warnings.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.missing_models.is_empty() {
            let count = self
                .instances
                .iter()
                .filter(|i| i.missing && self.models[i.model].error.is_none())
                .count();
            out.push(format!(
                "{} of {} model files not found; {count} instance(s) drawn as red placeholder boxes: {}",
                self.missing_models.len(),
                self.models.len(),
                self.missing_models.join(", ")
            ));
        }
        if !self.missing_textures.is_empty() {
            out.push(format!(
                "{} of {} ground textures not found, drawn as flat colours: {}",
                self.missing_textures.len(),
                self.ground.textures.len(),
                self.missing_textures.join(", ")
            ));
        }
        out.extend(self.warnings.iter().cloned());
        out
    }
}

fn load_map_model(name: &str, found: Option<Found>, lookup: &Lookup) -> MapModel {
    let missing = |error: Option<String>| MapModel {
        file: name.to_string(),
        model: None,
        error,
        to_client: Mat4::IDENTITY,
        bounds: (Vec3::ZERO, Vec3::ZERO),
    };
    let Some(found) = found else {
        return missing(None);
    };
    let path = found.entry.location.clone();
    let parsed = match lookup
        .read(&found)
        .and_then(|bytes| rsm::parse(&bytes, &path).map_err(Error::Parse))
    {
        Ok(p) => p,
        Err(e) => return missing(Some(e.to_string())),
    };
    let tree: Tree = found.tree();
    let model = lower_rsm(&parsed, &path, &mut |raw| {
        model_texture(lookup, &tree, &path, raw)
    });
    // RSM1: kiln's display already is the client's centering under D. RSM2:
    // the client does not centre, so undo kiln's centering translation.
    let to_client = if parsed.is_rsm2() {
        let axes = Mat4::from_scale(Vec3::new(1.0, 1.0, -1.0));
        axes * model.display.inverse()
    } else {
        Mat4::IDENTITY
    };
    let bounds = animation_bounds(&model);
    MapModel {
        file: name.to_string(),
        model: Some(Arc::new(model)),
        error: None,
        to_client,
        bounds,
    }
}

/// Bounds of the posed vertices at evenly spread times over the loop, grown
/// by a margin for motion between the samples.
fn animation_bounds(model: &Model) -> (Vec3, Vec3) {
    let samples = if model.duration > 0.0 { 16 } else { 1 };
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for k in 0..samples {
        let t = model.duration * k as f32 / samples as f32;
        let posed = scene::pose(model, t);
        for p in crate::render::posed_points(&posed) {
            if p.is_finite() {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
    }
    if lo.x > hi.x {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    let margin = if samples > 1 {
        (hi - lo) * 0.1 + Vec3::splat(1.0)
    } else {
        Vec3::splat(0.01)
    };
    (lo - margin, hi + margin)
}

/// The eight corners of the box `lo..hi`.
pub fn box_corners((lo, hi): (Vec3, Vec3)) -> [Vec3; 8] {
    std::array::from_fn(|k| {
        Vec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        )
    })
}

/// The axis-aligned bounds of a box after a transform.
pub fn transform_bounds(m: &Mat4, bounds: (Vec3, Vec3)) -> (Vec3, Vec3) {
    let mut out_lo = Vec3::splat(f32::INFINITY);
    let mut out_hi = Vec3::splat(f32::NEG_INFINITY);
    for c in box_corners(bounds) {
        let p = m.transform_point3(c);
        out_lo = out_lo.min(p);
        out_hi = out_hi.max(p);
    }
    (out_lo, out_hi)
}

/// The RSW sun in kiln's frame. The client turns (0, 1, 0) by latitude about
/// X, then by longitude about Y, and lights with its negation (RO is Y
/// down, so that points from the surface toward the sun); `D` brings it over.
pub fn sun(light: Option<&rsw::Light>) -> Light {
    let (lon, lat, diffuse, ambient) = match light {
        Some(l) => (l.longitude as f32, l.latitude as f32, l.diffuse, l.ambient),
        None => (45.0, 45.0, [1.0; 3], [0.3; 3]),
    };
    let (lon, lat) = (lon.to_radians(), lat.to_radians());
    let ro = Mat3::from_rotation_y(lon) * Mat3::from_rotation_x(lat) * Vec3::Y;
    let dir = D.transform_vector3(-ro).normalize_or_zero();
    let clean = |c: [f32; 3]| {
        Vec3::from_array(c.map(|v| {
            if v.is_finite() {
                v.clamp(0.0, 4.0)
            } else {
                0.0
            }
        }))
    };
    Light {
        direction: if dir == Vec3::ZERO { Vec3::Y } else { dir },
        color: clean(diffuse),
        ambient: clean(ambient),
    }
}

/// A unit-free box standing on y = 0 with a white outline on each face.
fn placeholder_box() -> Model {
    use crate::scene::{AlphaMode, Material, Mesh, Node, Primitive, TextureSlot};
    use crate::texture::{Texture, TextureAlpha};
    let (h, t) = (PLACEHOLDER_HALF, PLACEHOLDER_HEIGHT);
    let n = 16u32;
    let texels = (0..n * n)
        .map(|i| {
            let (x, y) = (i % n, i / n);
            if x < 2 || y < 2 || x >= n - 2 || y >= n - 2 {
                [255, 255, 255, 255]
            } else {
                PLACEHOLDER_RED
            }
        })
        .collect();
    let image = Texture {
        name: "placeholder".into(),
        width: n,
        height: n,
        texels,
        alpha: TextureAlpha::Opaque,
    };
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut triangles = Vec::new();
    // Each face: centre offset along its normal, two in-face axes.
    // Each quad runs bottom-left, bottom-right, top-right, top-left seen
    // from outside; the texture's outline frames every face.
    let corner_uvs = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)];
    let faces = crate::scene::geometry::box_faces(Vec3::new(-h, 0.0, -h), Vec3::new(h, t, h));
    for (normal, quad) in faces {
        let base = positions.len() as u32;
        for (p, (u, v)) in quad.into_iter().zip(corner_uvs) {
            positions.push(p);
            normals.push(normal);
            uvs.push(glam::Vec2::new(u, v));
        }
        triangles.push([base, base + 1, base + 2]);
        triangles.push([base, base + 2, base + 3]);
    }
    Model {
        extras: Default::default(),
        name: "placeholder".into(),
        source: PathBuf::new(),
        nodes: vec![Node::identity("placeholder", None)],
        meshes: vec![Mesh {
            name: "placeholder".into(),
            node: 0,
            positions,
            normals,
            uvs,
            colors: Vec::new(),
            skin: None,
            primitives: vec![Primitive {
                material: 0,
                triangles,
                two_sided: false,
                uv_anims: Vec::new(),
            }],
            groups: Vec::new(),
        }],
        materials: vec![Material {
            name: "placeholder".into(),
            texture: Some(0),
            alpha: AlphaMode::Opaque,
            unlit: false,
            emissive: [0.0; 3],
            emissive_texture: None,
            base_color: [1.0; 4],
        }],
        textures: vec![TextureSlot {
            name: "placeholder".into(),
            path: None,
            sampler: crate::scene::Sampler::default(),
            image: Arc::new(image),
        }],
        duration: 0.0,
        frame_rate: 30.0,
        looping: true,
        travel: Vec3::ZERO,
        display: Mat4::IDENTITY,
        warnings: Vec::new(),
    }
}
