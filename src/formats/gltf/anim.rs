//! A glTF's animations lowered into takes: per channel a track on a node
//! (translation, rotation, scale) or the weights of the meshes a node
//! draws, with LINEAR, STEP or CUBICSPLINE interpolation as the sampler
//! says. Each animation is its own take, lasting to its last key.

use super::accessor::Data;
use crate::error::{Error, Result};
use crate::scene::{Interp, Morph, NodeAnim, Take, Track};
use glam::{Quat, Vec3};
use std::collections::BTreeMap;

/// Every animation of the document as a take. `remap` maps glTF node
/// indices to kiln's, `drawn` lists the kiln meshes each glTF node draws,
/// `morphs` the kiln meshes' morph targets.
pub(crate) fn takes(
    data: &Data,
    remap: &[usize],
    drawn: &[Vec<usize>],
    morphs: &[Option<Morph>],
    warnings: &mut Vec<String>,
) -> Result<Vec<Take>> {
    let mut out = Vec::with_capacity(data.doc.animations.len());
    for (ai, a) in data.doc.animations.iter().enumerate() {
        let mut nodes: BTreeMap<usize, NodeAnim> = BTreeMap::new();
        let mut weights: BTreeMap<usize, Vec<Track<f32>>> = BTreeMap::new();
        let mut duration = 0.0f32;
        for (ci, c) in a.channels.iter().enumerate() {
            let field = format!("animations[{ai}].channels[{ci}]");
            let Some(node) = c.target.node.filter(|&n| n < remap.len()) else {
                // A channel without a node targets an extension's property.
                warnings.push(format!("{field} targets no node; ignored"));
                continue;
            };
            let s = a.samplers.get(c.sampler).ok_or_else(|| {
                Error::parse(
                    data.file,
                    format!("{field}.sampler"),
                    0,
                    format!("sampler {} does not exist", c.sampler),
                )
            })?;
            let sfield = format!("animations[{ai}].samplers[{}]", c.sampler);
            let interp = match s.interpolation.as_deref().unwrap_or("LINEAR") {
                "LINEAR" => Interp::Linear,
                "STEP" => Interp::Step,
                "CUBICSPLINE" => Interp::CubicSpline,
                other => {
                    return Err(Error::parse(
                        data.file,
                        format!("{sfield}.interpolation"),
                        0,
                        format!("unknown interpolation {other:?}"),
                    ))
                }
            };
            let input = data.floats(s.input)?;
            let times = input.data;
            if input.width != 1
                || times.windows(2).any(|w| w[1] <= w[0])
                || times.iter().any(|t| !t.is_finite() || *t < 0.0)
            {
                return Err(Error::parse(
                    data.file,
                    format!("{sfield}.input"),
                    0,
                    "key times must be scalar, non-negative and strictly increasing",
                ));
            }
            let output = data.floats(s.output)?;
            let per_key = if interp == Interp::CubicSpline { 3 } else { 1 };
            if let Some(&last) = times.last() {
                duration = duration.max(last);
            }
            let want = |width: usize| times.len() * per_key * width;
            let bad = |what: &str| {
                Error::parse(
                    data.file,
                    format!("{sfield}.output"),
                    0,
                    format!(
                        "{} values for {} keys of {what}",
                        output.data.len(),
                        times.len()
                    ),
                )
            };
            let kiln_node = remap[node];
            match c.target.path.as_str() {
                "translation" | "scale" => {
                    if output.width != 3 || output.data.len() != want(3) {
                        return Err(bad("VEC3"));
                    }
                    let values: Vec<Vec3> =
                        output.data.chunks_exact(3).map(Vec3::from_slice).collect();
                    let track = Some(Track::new(times, values, interp));
                    let anim = nodes.entry(kiln_node).or_default();
                    if c.target.path == "translation" {
                        anim.translation = track;
                    } else {
                        anim.scale = track;
                    }
                }
                "rotation" => {
                    if output.width != 4 || output.data.len() != want(4) {
                        return Err(bad("VEC4"));
                    }
                    let values: Vec<Quat> = output
                        .data
                        .chunks_exact(4)
                        .map(|q| Quat::from_xyzw(q[0], q[1], q[2], q[3]))
                        .collect();
                    nodes.entry(kiln_node).or_default().rotation =
                        Some(Track::new(times, values, interp));
                }
                "weights" => {
                    let meshes = &drawn[node];
                    let Some(targets) = meshes
                        .iter()
                        .filter_map(|&m| morphs.get(m).and_then(Option::as_ref))
                        .map(|m| m.targets.len())
                        .next()
                    else {
                        warnings.push(format!(
                            "{field} animates the weights of a node without morph targets; ignored"
                        ));
                        continue;
                    };
                    if targets == 0 || output.width != 1 || output.data.len() != want(targets) {
                        return Err(bad(&format!("{targets} weights")));
                    }
                    let tracks: Vec<Track<f32>> = (0..targets)
                        .map(|k| {
                            let values = output
                                .data
                                .chunks_exact(targets)
                                .map(|row| row[k])
                                .collect();
                            Track::new(times.clone(), values, interp)
                        })
                        .collect();
                    for &m in meshes {
                        if morphs
                            .get(m)
                            .and_then(Option::as_ref)
                            .is_some_and(|x| x.targets.len() == targets)
                        {
                            weights.insert(m, tracks.clone());
                        }
                    }
                }
                other => warnings.push(format!(
                    "{field}: path {other:?} is not one kiln animates; ignored"
                )),
            }
        }
        out.push(Take {
            name: a.name.clone().unwrap_or_default(),
            duration,
            nodes: nodes.into_iter().collect(),
            morphs: weights.into_iter().collect(),
        });
    }
    Ok(out)
}
