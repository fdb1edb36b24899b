//! `kiln render X.act`: one frame of a Ragnarok client sprite.

use super::render::RenderArgs;
use clap::Args;
use kiln::Error;

/// For a Ragnarok client sprite (.act with its .spr): which frame.
#[derive(Args)]
pub struct SpriteArgs {
    /// Sprite: the motion (0 idle, 1 walk, 2 attack, 3 hurt, 4 die for monsters), or the
    /// action itself when the ACT's actions are not in eights
    #[arg(long, value_name = "N", default_value_t = 0)]
    action: usize,
    /// Sprite: the direction, 0 south (facing the camera) to 7 south-east, turning clockwise
    #[arg(long, value_name = "D", default_value_t = 0)]
    direction: usize,
}

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
