//! The camera flags of `kiln render`: yaw, pitch, size, projection,
//! supersampling and background.

use super::values::{color, number, size};
use clap::{Args, ValueEnum};
use kiln::{limits, Projection, ViewSpec};

#[derive(Clone, Copy, ValueEnum)]
enum ProjectionArg {
    Orthographic,
    Perspective,
}

#[derive(Args)]
pub struct ViewArgs {
    /// Camera yaw in degrees (0 = front, positive turns the camera counter-clockwise seen from above)
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = number(ViewSpec::check_yaw))]
    pub yaw: f32,
    /// Camera elevation in degrees above the horizon
    #[arg(long, default_value_t = limits::PITCH, allow_negative_numbers = true, value_parser = number(ViewSpec::check_pitch))]
    pub pitch: f32,
    /// Image size as WIDTHxHEIGHT
    #[arg(long, default_value = "256x256", value_parser = size)]
    pub size: (u32, u32),
    #[arg(long, value_enum, default_value = "orthographic")]
    projection: ProjectionArg,
    /// Vertical field of view in degrees (perspective only)
    #[arg(long, default_value_t = limits::FOV, value_parser = number(ViewSpec::check_fov))]
    fov: f32,
    /// Supersampling factor per axis (1 = off, 2 = 4 samples per pixel, up to 4)
    #[arg(long, default_value_t = limits::ANTIALIAS, value_parser = clap::value_parser!(u32).range(1..=limits::MAX_ANTIALIAS as i64))]
    pub aa: u32,
    /// Background: "transparent", "#rrggbb" or "#rrggbbaa"
    #[arg(long, default_value = "transparent", value_parser = color)]
    pub background: [u8; 4],
}

impl ViewArgs {
    pub fn projection(&self) -> Projection {
        match self.projection {
            ProjectionArg::Orthographic => Projection::Orthographic,
            ProjectionArg::Perspective => Projection::Perspective { fov_deg: self.fov },
        }
    }

    /// The view of a model render these flags describe.
    pub fn spec(&self) -> ViewSpec {
        let (width, height) = self.size;
        ViewSpec {
            pitch: self.pitch,
            width,
            height,
            framing: kiln::Framing {
                projection: self.projection(),
                ..kiln::Framing::default()
            },
            light: kiln::LightSpec::default(),
            background: self.background,
            antialias: self.aa,
        }
    }
}
