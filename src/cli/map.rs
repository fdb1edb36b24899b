//! `kiln render MAP.rsw`: one image of a Ragnarok map, top-down or angled.

use super::render_args::RenderArgs;
use kiln::{Error, Map, MapView, MapViewCamera};

pub fn render(a: &RenderArgs) -> Result<(), Error> {
    if a.time.frame.is_some() {
        return Err(Error::Usage(
            "a map has no frame rate of its own; give --time SECONDS".into(),
        ));
    }
    if !a.look.look().is_off() {
        return Err(Error::Usage(
            "looks (--outline, --drop-shadow, --palette, --colors, --shading, --ground-shadow) apply to models, not maps"
                .into(),
        ));
    }
    let ppt = a.map.pixels_per_tile;
    if !a.map.angled && MapViewCamera::check_pixels_per_tile(ppt).is_err() {
        return Err(Error::Usage(format!(
            "--pixels-per-tile must be in (0, {}], got {ppt}",
            kiln::MAX_PIXELS_PER_TILE
        )));
    }
    let map = Map::load(a.model.model.as_path(), &a.model.data)?;
    for note in map.notes() {
        say!("kiln: warning: {note}");
    }
    let camera = if a.map.angled {
        let (width, height) = a.view.size;
        MapViewCamera::Angled {
            yaw: a.view.yaw,
            pitch: a.view.pitch,
            width,
            height,
            projection: a.view.projection(),
        }
    } else {
        MapViewCamera::TopDown {
            pixels_per_tile: ppt,
        }
    };
    let t = a.time.time.unwrap_or(0.0);
    let img = map.render(&MapView {
        region: a.map.region,
        camera,
        time: t,
        antialias: a.view.aa,
        background: a.view.background,
    })?;
    kiln::write_png(&a.output, &img)?;
    say!(
        "kiln: wrote {} ({}x{}, map {} with {} instances, t = {t:.3} s)",
        a.output.display(),
        img.width(),
        img.height(),
        a.model.model.display(),
        map.instance_count()
    );
    Ok(())
}
