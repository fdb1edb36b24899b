//! `kiln render`: one image of a model (its colours, with looks, or a data
//! pass), of a client sprite, or of a Ragnarok map.

use super::look_args::PassArg;
pub use super::render_args::RenderArgs;
use kiln::{Error, FileKind, FileRef, Look, Model, ViewSpec};

pub fn run(a: RenderArgs) -> Result<(), Error> {
    // The image is always PNG; another extension would name it wrongly.
    let png = a
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        return Err(Error::Usage(format!(
            "{}: kiln writes PNG images only; name the output .png",
            a.output.display()
        )));
    }
    let file = FileRef::from(a.model.model.as_path());
    match kiln::file_kind(&file, &a.model.data)? {
        FileKind::Map => return super::map::render(&a),
        FileKind::Sprite => return super::sprite::render(&a),
        _ => {}
    }
    let model = a.model.load()?;
    let t = a.time.of(&model);
    let view = a.view.spec();
    a.look.check()?;
    let look = a.look.look();
    if let Some(pass) = a.look.pass {
        return render_pass(&a, &model, t, &view, pass, &look);
    }
    let sprite = if look.is_off() {
        model.render(t, a.view.yaw, &view)?
    } else {
        model.render_with_look(t, a.view.yaw, &view, &look)?
    };
    kiln::write_png(&a.output, &sprite.image)?;
    say!(
        "kiln: wrote {} ({}x{}, t = {t:.3} s)",
        a.output.display(),
        view.width,
        view.height
    );
    Ok(())
}

/// `kiln render MODEL --pass P`: one frame of a pass, with the ID pass's
/// legend beside it.
fn render_pass(
    a: &RenderArgs,
    model: &Model,
    t: f32,
    view: &ViewSpec,
    pass: PassArg,
    look: &Look,
) -> Result<(), Error> {
    if !look.is_off() {
        return Err(Error::Usage(
            "--pass draws data, not colours: give it without looks (--outline, --drop-shadow, --palette, --colors, --shading, --ground-shadow)".into(),
        ));
    }
    let sprite = model.render_pass(t, a.view.yaw, view, a.look.pass_view(pass))?;
    if pass == PassArg::Depth {
        let png = kiln::encode_depth_png(&sprite.image, a.look.depth_bits())?;
        kiln::write_file(&a.output, &png)?;
    } else {
        kiln::write_png(&a.output, &sprite.image)?;
    }
    let mut legend = None;
    if pass == PassArg::Id {
        let stem = a.output.file_stem().unwrap_or_default().to_string_lossy();
        let path = a.output.with_file_name(format!("{stem}_legend.json"));
        kiln::write_file(&path, model.id_legend(a.look.id_by()).as_bytes())?;
        legend = Some(path);
    }
    let (w, h) = sprite.image.dimensions();
    say!(
        "kiln: wrote {} ({w}x{h}, t = {t:.3} s){}",
        a.output.display(),
        legend.map_or(String::new(), |p| format!(
            " and its legend {}",
            p.display()
        ))
    );
    Ok(())
}
