//! `kiln render X.act`: one frame of a Ragnarok client sprite.

use super::render_args::RenderArgs;
use kiln::Error;

/// One frame of a client sprite at its own size, composited as the client
/// draws it.
pub fn render(a: &RenderArgs) -> Result<(), Error> {
    if a.time.time.is_some() {
        return Err(Error::Usage(
            "a sprite plays frames at its own intervals; give --frame N".into(),
        ));
    }
    let sprite = kiln::ClientSprite::load(a.model.model.as_path(), &a.model.data)?;
    for w in sprite.warnings() {
        say!("kiln: warning: {w}");
    }
    let action = sprite.action_index(a.sprite.action, a.sprite.direction)?;
    let frame = a.time.frame.unwrap_or(0) as usize;
    let image = sprite.render_over(action, frame, a.view.background)?;
    kiln::write_png(&a.output, &image.image)?;
    say!(
        "kiln: wrote {} ({}x{}, action {action}, frame {frame}, {} ms a frame)",
        a.output.display(),
        image.image.width(),
        image.image.height(),
        (sprite.frame_seconds(action) * 1000.0).round()
    );
    Ok(())
}
