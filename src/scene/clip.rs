//! Which moments of an animation become frames: a clip as a recipe or a
//! caller gives it, and its sample times once the model's length is known.
//!
//! Kept with the scene rather than the bake so that anything sampling a
//! model over time (sheets, GIFs, exporters) shares one timing rule.

/// Most frames one clip may sample; a guard against `fps` × a very long model.
pub const MAX_FRAMES: usize = 4096;

/// Latest time a clip or a still may be at, seconds: a day (anything
/// later is a typo).
pub const MAX_SECONDS: f32 = 86400.0;

/// Which moments of the animation become frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Clip {
    /// One frame at `time` seconds.
    Still {
        /// Seconds.
        time: f32,
    },
    /// Frames over `[start, end)`; `end: None` means the model's duration.
    Range {
        /// First frame's time, seconds.
        start: f32,
        /// End of the range (exclusive), seconds; `None` is the animation's end.
        end: Option<f32>,
        /// How frames are spaced.
        step: Step,
    },
}

impl Clip {
    /// A time in seconds a still is drawn at (what [`crate::Model::render`]
    /// and [`crate::Model::export`] take): finite, 0..=[`MAX_SECONDS`].
    pub fn check_time(time: f32) -> Result<f32, crate::error::ValueError> {
        crate::range::closed("time", time, 0.0, MAX_SECONDS)
    }
}

/// How a range is divided into frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Frames every `1/fps` seconds.
    Fps(f32),
    /// This many frames spread evenly over the range.
    Frames(u32),
}

/// The sample times of a clip once the model's duration is known.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameTimes {
    /// Seconds, ascending.
    pub times: Vec<f32>,
    /// How long each frame is shown, seconds (0 for a still).
    pub frame_seconds: f32,
    /// Frames per second as the clip gives them: its `fps` exactly as
    /// written, or its `frames` over its range; 0 for a still. Metadata
    /// writes this rather than `1 / frame_seconds`, which is 14.999999 for
    /// a clip written at 15.
    pub rate: f32,
    /// Where the clip ends, seconds: a loop starts over from its first
    /// frame there; a one-shot's last frame is this moment.
    pub end: f32,
}

impl FrameTimes {
    /// Frames per second as the clip gives them (0 for a still).
    pub fn fps(&self) -> f32 {
        self.rate
    }
}

impl Clip {
    /// Whether this clip can only ever produce one frame (so file-name
    /// templates need no `{frame}`).
    pub fn is_single(&self) -> bool {
        matches!(
            self,
            Clip::Still { .. }
                | Clip::Range {
                    step: Step::Frames(1),
                    ..
                }
        )
    }

    /// Sample times of a looping clip for a model whose animation lasts
    /// `model_duration` seconds: frames cover `[start, end)`, the end (the
    /// loop's start again) not sampled. A range over a static model
    /// (duration 0) yields one frame.
    pub fn frame_times(&self, model_duration: f32) -> Result<FrameTimes, String> {
        self.sample(model_duration, false)
    }

    /// Sample times of a clip that plays once, ending at `model_end`
    /// seconds (its last key) unless it gives its own `end`: frames cover
    /// `[start, end]` and the last frame is the end itself, so a door
    /// opening ends open. Frames keep the clip's spacing; only the step to
    /// the last frame may be shorter when the range is not a whole number
    /// of frames. With `frames: N` the N frames span the range end to end.
    pub fn frame_times_once(&self, model_end: f32) -> Result<FrameTimes, String> {
        self.sample(model_end, true)
    }

    fn sample(&self, model_duration: f32, once: bool) -> Result<FrameTimes, String> {
        match *self {
            Clip::Still { time } => Ok(FrameTimes {
                times: vec![time],
                frame_seconds: 0.0,
                rate: 0.0,
                end: time,
            }),
            Clip::Range { start, end, step } => {
                let end = end.unwrap_or(model_duration.max(0.0));
                if !end.is_finite() || end < start {
                    return Err(format!(
                        "clip starts at {start} s but the animation ends at {end} s"
                    ));
                }
                let span = end - start;
                match step {
                    Step::Fps(fps) => {
                        // A hair below whole numbers so 2 s at 12 fps is 24 frames, not 25.
                        let n = ((span as f64 * fps as f64) - 1e-4).ceil().max(1.0);
                        // A one-shot adds its end, unless the range is empty.
                        let n = if once && span > 0.0 { n + 1.0 } else { n };
                        if n > MAX_FRAMES as f64 {
                            return Err(format!(
                                "clip of {span} s at {fps} fps is {n} frames, more than {MAX_FRAMES}"
                            ));
                        }
                        let n = n as usize;
                        let mut times: Vec<f32> = (0..n)
                            .map(|i| (start as f64 + i as f64 / fps as f64) as f32)
                            .collect();
                        if once && n > 1 {
                            times[n - 1] = end;
                        }
                        Ok(FrameTimes {
                            times,
                            frame_seconds: 1.0 / fps,
                            rate: fps,
                            end,
                        })
                    }
                    Step::Frames(n) => {
                        let gaps = if once { n.saturating_sub(1).max(1) } else { n };
                        let dt = span as f64 / gaps as f64;
                        let times = (0..n)
                            .map(|i| (start as f64 + i as f64 * dt) as f32)
                            .collect();
                        Ok(FrameTimes {
                            times,
                            frame_seconds: dt as f32,
                            rate: if dt > 0.0 { (1.0 / dt) as f32 } else { 0.0 },
                            end,
                        })
                    }
                }
            }
        }
    }
}
