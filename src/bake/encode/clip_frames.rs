//! One clip's frames as a job renders them: images by direction and frame,
//! with their times, pivots and root motion — what the sheet, the
//! metadata and every encoder are made from.

use crate::scene::clip::FrameTimes;
use image::RgbaImage;

/// One clip's rendered frames and what the metadata says about them.
#[derive(Debug, Clone)]
pub struct ClipFrames {
    /// The sample times and spacing the frames were rendered at.
    pub times: FrameTimes,
    /// `frames[d][f]` is direction `job.directions[d]` at `times.times[f]`.
    pub frames: Vec<Vec<RgbaImage>>,
    /// Per direction: where the model's ground point under its origin
    /// lands, as fractions of the frame's width and height from its
    /// top-left corner.
    pub pivots: Vec<[f32; 2]>,
    /// `root_motion[d][f]`: pixels the engine moves the sprite by while
    /// frame `f` shows (x right, y down); empty when the clip keeps its
    /// travel in the frames or has none.
    pub root_motion: Vec<Vec<[f32; 2]>>,
    /// Whether the clip loops (else it plays once).
    pub looping: bool,
}

impl ClipFrames {
    /// Frames seen from every direction with one pivot, looping, without
    /// root motion.
    pub fn new(times: FrameTimes, frames: Vec<Vec<RgbaImage>>, pivot: [f32; 2]) -> ClipFrames {
        let n = frames.len();
        ClipFrames {
            times,
            frames,
            pivots: vec![pivot; n],
            root_motion: Vec::new(),
            looping: true,
        }
    }

    /// The same clip with other images (a pass of it): times, pivots, root
    /// motion and looping kept, so its sheet and metadata match frame for
    /// frame.
    pub fn with_frames(&self, frames: Vec<Vec<RgbaImage>>) -> ClipFrames {
        ClipFrames {
            times: self.times.clone(),
            frames,
            pivots: self.pivots.clone(),
            root_motion: self.root_motion.clone(),
            looping: self.looping,
        }
    }
}
