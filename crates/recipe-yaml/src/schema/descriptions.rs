//! What each key means, for an editor's hover: one line each, from
//! docs/recipes.md, where the whole story is. Serde cannot carry doc
//! comments, so the lines live here, keyed by struct and key; a test
//! checks every entry names a key the walk finds.

/// Struct name (as serde names it), key, meaning.
pub(crate) const DESCRIPTIONS: &[(&str, &str, &str)] = &[
    ("RawRecipe", "jobs", "The jobs, baked in file order."),
    ("RawRecipe", "maps", "Ragnarok map previews, baked after the jobs."),
    ("RawRecipe", "gallery", "One static HTML page (paged when large) showing every job's sheet, animations, sizes, warnings and sources."),
    ("RawGallery", "file", "The page, relative to the recipe (or below the output root); further pages take `-2`, `-3`, … before `.html`."),
    ("RawGallery", "page_size", "Jobs a page shows, 1..=10000 (default 500)."),
    ("RawRecipe", "defaults", "Values used by every job that does not set them; nested keys merge key by key."),
    ("RawJob", "name", "Unique across the recipe; used in messages and output names."),
    ("RawJob", "model", "The model file, relative to the recipe; a glob (`data/model/**/*.rsm`) makes one job instance per file it matches in the recipe's folder and the `data` sources."),
    ("RawJob", "exclude", "Globs of files a glob `model` leaves out."),
    ("RawJob", "data", "Extra folders searched for textures, in order."),
    ("RawJob", "clip", "Which moments become frames (one clip, named `default`)."),
    ("RawJob", "clips", "Instead of `clip`: several clips in one sheet, or `all` (glTF: one per animation)."),
    ("RawJob", "pose", "Skinned models: `rest` (the file's node matrices) or `bind` (the skin's bind pose)."),
    ("RawJob", "materials", "Texture files for named materials, overriding the model's own lookup."),
    ("RawJob", "skeleton", "A skeleton kept outside the model: a model.cfg and class, or bone/parent pairs."),
    ("RawJob", "duration", "Seconds, for animations whose file gives no length (Arma RTM)."),
    ("RawJob", "travel", "Deprecated: `travel: true` is `root_motion: keep`."),
    ("RawJob", "root_motion", "`in_place` takes a clip root's travel out of the frames into the metadata; `keep` draws it."),
    ("RawJob", "lod", "Which level of detail to bake: an index, or `{ resolution: R }`."),
    ("RawJob", "scene", "glTF: which scene to draw, by name or index."),
    ("RawJob", "directions", "A count of evenly spaced directions (1..=360), or a list of yaw degrees."),
    ("RawJob", "pitch", "Camera elevation above the horizon, degrees (-90..=90)."),
    ("RawJob", "size", "Frame size in pixels: WxH, [W, H] or N (square), each side 1..=8192."),
    ("RawJob", "camera", "Projection and framing."),
    ("RawJob", "scale", "A fixed scale in pixels per model unit instead of fitting the model."),
    ("RawJob", "framing", "Jobs of one group share one camera per direction, keeping relative sizes."),
    ("RawJob", "light", "One directional light plus ambient."),
    ("RawJob", "background", "`transparent`, \"#rrggbb\" or \"#rrggbbaa\" (quoted: # starts a YAML comment)."),
    ("RawJob", "antialias", "Supersampling per axis, 1..=4."),
    ("RawJob", "pack", "How frames are laid out on the sheet: grid or packed, trimmed or not."),
    ("RawJob", "metadata", "Which engines' descriptions of the sheet to write beside it."),
    ("RawJob", "output", "What files to write, and where."),
    ("RawJob", "client_sprite", "How `output.ro_sprite` bakes a Ragnarok client sprite."),
    ("RawJob", "look", "Outlines, shadows, shading, palettes and extra passes."),
    ("RawJob", "png", "How hard PNG outputs are deflated: fast, default or best."),
    ("RawOutput", "dir", "The job's output folder, relative to the recipe (or to --out-dir)."),
    ("RawOutput", "frames", "One PNG per frame (a name template), or false."),
    ("RawOutput", "sheet", "The sprite sheet PNG (a name template), or false."),
    ("RawOutput", "meta", "The sheet's metadata (a name template), or false."),
    ("RawOutput", "gif", "One GIF per clip and direction (a name template), or false."),
    ("RawOutput", "gltf", "The posed animation as glTF binary (a name template), or false."),
    ("RawOutput", "apng", "One animated PNG per clip and direction (a name template), or false."),
    ("RawOutput", "prune", "Remove files an earlier bake of the job wrote and this one does not."),
    ("RawOutput", "ro_sprite", "A Ragnarok client sprite (.spr + .act, a name template), or false."),
];

/// The line for `key` of the struct serde names `name`.
pub(crate) fn describe(name: &str, key: &str) -> Option<&'static str> {
    DESCRIPTIONS
        .iter()
        .find(|(n, k, _)| *n == name && *k == key)
        .map(|(_, _, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::DESCRIPTIONS;

    /// A line for a key that does not exist (renamed, removed) would never
    /// be shown: every entry must land in the generated schema.
    #[test]
    fn every_description_names_a_key_the_schema_has() {
        let s = crate::schema::schema().unwrap();
        for (name, key, text) in DESCRIPTIONS {
            let def = name.strip_prefix("Raw").unwrap();
            let props = if *name == "RawRecipe" {
                &s["properties"]
            } else {
                &s["definitions"][def]["properties"]
            };
            assert_eq!(props[key]["description"], *text, "{name}.{key}");
        }
    }
}
