//! A glTF's images, decoded once each, and its textures (an image with a
//! sampler) as the model's texture slots. An image kiln cannot find or
//! decode becomes the checker, with a warning, as in every format.

use super::accessor::Data;
use super::container::{read_relative, uri, Uri};
use super::doc;
use crate::formats::texture::{jpeg, png};
use crate::scene::{Filter, Sampler, TextureSlot, Wrap};
use crate::source::{Lookup, Tree};
use crate::texture::Texture;
use std::path::PathBuf;
use std::sync::Arc;

/// Decodes image `i` of the document: from a buffer view, a data URI or a
/// file relative to the glTF. `Err` is the warning to give.
fn image(
    data: &Data,
    lookup: &Lookup,
    tree: &Tree,
    i: usize,
) -> Result<(Texture, Option<PathBuf>), String> {
    let img = &data.doc.images[i];
    let label = img
        .name
        .clone()
        .or_else(|| img.uri.clone())
        .unwrap_or_else(|| format!("image {i}"));
    let (bytes, path): (Vec<u8>, Option<PathBuf>) = match (&img.buffer_view, &img.uri) {
        (Some(v), _) => {
            let view = data
                .doc
                .buffer_views
                .get(*v)
                .ok_or_else(|| format!("images[{i}]: bufferView {v} does not exist"))?;
            let buf = data
                .buffers
                .get(view.buffer)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let end = view.byte_offset.saturating_add(view.byte_length) as usize;
            let b = buf
                .get(view.byte_offset as usize..end)
                .ok_or_else(|| format!("images[{i}]: bufferView {v} runs past its buffer"))?;
            (b.to_vec(), Some(embedded(data, i)))
        }
        (None, Some(u)) => match uri(u).map_err(|e| format!("images[{i}].uri: {e}"))? {
            Uri::Data(b) => (b, Some(embedded(data, i))),
            Uri::File(p) => {
                let (b, at) = read_relative(lookup, tree, &p).ok_or_else(|| {
                    format!("images[{i}]: {p} not found beside {}", data.file.display())
                })?;
                (b, Some(at))
            }
        },
        (None, None) => return Err(format!("images[{i}] names no data")),
    };
    let name = path.clone().unwrap_or_else(|| PathBuf::from(&label));
    let decoded = if bytes.starts_with(png::MAGIC) {
        png::decode(&bytes, &name, lookup.memory())
    } else if bytes.starts_with(jpeg::MAGIC) {
        jpeg::decode(&bytes, &name, lookup.memory())
    } else {
        return Err(format!(
            "images[{i}] ({label}): neither PNG nor JPEG; drawn as the checker"
        ));
    };
    decoded
        .map(|t| (t, path))
        .map_err(|e| format!("images[{i}] ({label}): {e}"))
}

/// How an image held inside the glTF file is named: the file, then which.
fn embedded(data: &Data, i: usize) -> PathBuf {
    PathBuf::from(format!("{}#images[{i}]", data.file.display()))
}

/// One slot per glTF texture, in order; images shared between textures are
/// decoded once. Warnings for images that could not be read.
pub(crate) fn textures(
    data: &Data,
    lookup: &Lookup,
    tree: &Tree,
    warnings: &mut Vec<String>,
) -> Vec<TextureSlot> {
    let checker = Arc::new(Texture::checker());
    let mut decoded: Vec<Option<(Arc<Texture>, Option<PathBuf>)>> = Vec::new();
    for i in 0..data.doc.images.len() {
        decoded.push(match image(data, lookup, tree, i) {
            Ok((t, p)) => Some((Arc::new(t), p)),
            Err(w) => {
                warnings.push(w);
                None
            }
        });
    }
    data.doc
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let found = t.source.and_then(|s| decoded.get(s).cloned().flatten());
            let name = t
                .name
                .clone()
                .or_else(|| {
                    t.source
                        .and_then(|s| data.doc.images.get(s))
                        .and_then(|im| im.name.clone().or_else(|| im.uri.clone()))
                        .filter(|u| !u.starts_with("data:"))
                })
                .unwrap_or_else(|| format!("texture{i}"));
            if t.source.is_none() {
                warnings.push(format!(
                    "textures[{i}] has no image kiln reads; drawn as the checker"
                ));
            }
            let sampler = t
                .sampler
                .and_then(|k| data.doc.samplers.get(k))
                .map_or_else(Sampler::default, sampler);
            match found {
                Some((image, path)) => TextureSlot {
                    name,
                    path,
                    image,
                    sampler,
                },
                None => TextureSlot {
                    name,
                    path: None,
                    image: Arc::clone(&checker),
                    sampler,
                },
            }
        })
        .collect()
}

/// A glTF sampler as kiln samples: each wrap mode as it is (REPEAT when
/// absent or unknown), and one filter for the whole texture, since kiln
/// has no mipmaps to tell magnification from minification with:
/// `magFilter`'s, else the texel filter of `minFilter` (NEAREST,
/// NEAREST_MIPMAP_NEAREST or NEAREST_MIPMAP_LINEAR are nearest), else
/// bilinear.
fn sampler(s: &doc::Sampler) -> Sampler {
    let wrap = |w: Option<u32>| match w {
        Some(33071) => Wrap::Clamp,
        Some(33648) => Wrap::Mirror,
        _ => Wrap::Repeat,
    };
    let nearest = match (s.mag_filter, s.min_filter) {
        (Some(m), _) => m == 9728,
        (None, Some(m)) => matches!(m, 9728 | 9984 | 9986),
        (None, None) => false,
    };
    Sampler {
        wrap_u: wrap(s.wrap_s),
        wrap_v: wrap(s.wrap_t),
        filter: if nearest {
            Filter::Nearest
        } else {
            Filter::Bilinear
        },
    }
}
