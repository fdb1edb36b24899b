//! Camera maths in one place: the yaw/pitch convention, the camera basis,
//! the clip-wide framing, and lights given relative to the camera.
//!
//! Framing is computed once per clip from every sampled frame and every
//! direction, so a sprite never jitters or rescales from frame to frame or
//! from one direction to the next.
//!
//! Conventions: kiln's world is right-handed, Y up, the model's front faces
//! +Z. Yaw 0 looks at the front (camera on +Z); positive yaw moves the camera
//! counter-clockwise seen from above (toward +X). Pitch is the camera's
//! elevation above the horizon in degrees.
//!
//! Nothing here knows recipes or the command line; both resolve what the
//! user wrote into these types.

use crate::raster::Camera;
use glam::{Mat3, Mat4, Vec3};
use rayon::prelude::*;

/// How the camera projects: parallel rays, or a perspective with its field of
/// view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Parallel rays: sizes do not shrink with distance (the usual sprite look).
    Orthographic,
    /// A pinhole camera.
    Perspective {
        /// Vertical field of view in degrees.
        fov_deg: f32,
    },
}

/// How the camera is fitted around the model; a recipe's `camera:`
/// block resolves to this.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Framing {
    /// Orthographic or perspective.
    pub projection: Projection,
    /// Empty margin around the model as a fraction of the image (0.05 = 5 %
    /// each side); recipes allow 0..0.5.
    pub padding: f32,
    /// > 1 enlarges the model beyond the fitted size (may crop), < 1 shrinks it.
    pub zoom: f32,
    /// A fixed scale instead of fitting: this many pixels per model unit
    /// (metres for Grimrock and Arma, RO units for RSM), measured at the
    /// framed centre for a perspective camera. Padding and zoom apply to
    /// fitting only.
    pub pixels_per_unit: Option<f32>,
}

impl Default for Framing {
    fn default() -> Self {
        Framing {
            projection: Projection::Orthographic,
            padding: 0.05,
            zoom: 1.0,
            pixels_per_unit: None,
        }
    }
}

/// Unit vector for a yaw/pitch pair in degrees: yaw 0 points at +Z, positive
/// yaw turns toward +X, pitch lifts toward +Y. For a camera it points from
/// the target toward the eye; for a light, toward the light.
pub fn yaw_pitch_vector(yaw: f32, pitch: f32) -> Vec3 {
    let (sy, cy) = yaw.to_radians().sin_cos();
    let (sp, cp) = pitch.to_radians().sin_cos();
    Vec3::new(sy * cp, sp, cy * cp)
}

/// The rotation-only view matrix of a camera at `yaw`/`pitch` looking at
/// the origin.
///
/// Straight down (pitch 90) the screen's up is the way the camera faces at
/// that yaw, the limit of tilting it down from the horizon: at yaw 0 the
/// model's back (−Z) is up and its front at the bottom of the image, and
/// the image turns with the yaw. Straight up (pitch −90) mirrors that: the
/// model's front is up at yaw 0.
pub fn view_rotation(yaw: f32, pitch: f32) -> Mat4 {
    let dir = yaw_pitch_vector(yaw, pitch);
    let up = if dir.cross(Vec3::Y).length_squared() < 1e-8 {
        let (sy, cy) = yaw.to_radians().sin_cos();
        -Vec3::new(sy, 0.0, cy) * dir.y.signum()
    } else {
        Vec3::Y
    };
    Mat4::look_to_rh(Vec3::ZERO, -dir, up)
}

/// One camera per view: fitted around `points` ([`fit_cameras`]), or at
/// the fixed scale of `framing.pixels_per_unit` ([`scaled_cameras`]), for
/// images of `width × height` pixels.
pub fn frame_cameras(
    points: &[Vec3],
    views: &[(f32, f32)],
    width: u32,
    height: u32,
    framing: &Framing,
) -> Vec<Camera> {
    let aspect = width as f32 / height.max(1) as f32;
    match framing.pixels_per_unit {
        Some(ppu) => scaled_cameras(points, views, width, height, framing.projection, ppu),
        None => fit_cameras(points, views, aspect, framing),
    }
}

/// Cameras at a fixed scale of `ppu` pixels per unit, centred on the
/// points' bounding box like a fitted camera; what does not fit is cut.
/// An orthographic camera turned by `r` around `centre`, seeing
/// `half_w × half_h` either side of it, placed outside the sphere of
/// `radius` with the depth range just around that sphere.
fn orthographic(r: Mat4, centre: Vec3, radius: f32, half_w: f32, half_h: f32) -> Camera {
    let dist = radius * 2.0 + 1.0;
    let view =
        Mat4::from_translation(Vec3::new(0.0, 0.0, -dist)) * r * Mat4::from_translation(-centre);
    let proj = Mat4::orthographic_rh(
        -half_w,
        half_w,
        -half_h,
        half_h,
        dist - radius * 1.01 - 1e-3,
        dist + radius * 1.01 + 1e-3,
    );
    Camera { view, proj }
}

/// A perspective camera has that scale at the centre's depth.
pub fn scaled_cameras(
    points: &[Vec3],
    views: &[(f32, f32)],
    width: u32,
    height: u32,
    projection: Projection,
    ppu: f32,
) -> Vec<Camera> {
    let (centre, radius) = bounds(points);
    let ppu = if ppu.is_finite() && ppu > 0.0 {
        ppu
    } else {
        1.0
    };
    let half_h = height.max(1) as f32 * 0.5 / ppu;
    let half_w = width.max(1) as f32 * 0.5 / ppu;
    views
        .iter()
        .map(|&(y, p)| {
            let r = view_rotation(y, p);
            match projection {
                Projection::Orthographic => orthographic(r, centre, radius, half_w, half_h),
                Projection::Perspective { fov_deg } => {
                    let fov = fov_deg.clamp(1.0, 170.0).to_radians();
                    let dist = half_h / (fov * 0.5).tan();
                    let near = (dist - radius).max(dist * 1e-3).max(1e-4);
                    let far = dist + radius * 1.01 + 1e-3;
                    let view = Mat4::from_translation(Vec3::new(0.0, 0.0, -dist))
                        * r
                        * Mat4::from_translation(-centre);
                    Camera {
                        view,
                        proj: Mat4::perspective_rh(fov, half_w / half_h, near, far),
                    }
                }
            }
        })
        .collect()
}

/// The centre of the finite points' bounding box and their largest
/// distance from it (1 for no points).
fn bounds(points: &[Vec3]) -> (Vec3, f32) {
    let (min, max) = points.iter().filter(|p| p.is_finite()).fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    if min.x > max.x {
        return (Vec3::ZERO, 1.0);
    }
    let c = (min + max) * 0.5;
    let r = points
        .iter()
        .filter(|p| p.is_finite())
        .map(|p| (*p - c).length())
        .fold(0.0f32, f32::max);
    (c, r.max(1e-3))
}

/// Fits one camera per view (yaw, pitch) so that every point stays in frame
/// with the same scale in all of them.
pub fn fit_cameras(
    points: &[Vec3],
    views: &[(f32, f32)],
    aspect: f32,
    framing: &Framing,
) -> Vec<Camera> {
    let finite: Vec<Vec3> = points.iter().copied().filter(|p| p.is_finite()).collect();
    let (min, max) = finite.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let (centre, radius) = if finite.is_empty() {
        (Vec3::ZERO, 1.0)
    } else {
        let c = (min + max) * 0.5;
        let r = finite
            .iter()
            .map(|p| (*p - c).length())
            .fold(0.0f32, f32::max);
        (c, r.max(1e-3))
    };
    let aspect = if aspect.is_finite() && aspect > 0.0 {
        aspect
    } else {
        1.0
    };
    let fill = (1.0 - 2.0 * framing.padding.clamp(0.0, 0.45)) * framing.zoom.max(1e-3);
    let rots: Vec<Mat4> = views.iter().map(|&(y, p)| view_rotation(y, p)).collect();
    // Each view's bound over every point, the views in parallel: maxima,
    // so the same bits in any order.
    match framing.projection {
        Projection::Orthographic => {
            // Largest half-extent over every view, then one scale for all.
            let (half_w, half_h) = rots
                .par_iter()
                .map(|r| {
                    finite.iter().fold((1e-3f32, 1e-3f32), |(w, h), &p| {
                        let q = r.transform_point3(p - centre);
                        (w.max(q.x.abs()), h.max(q.y.abs()))
                    })
                })
                .reduce(|| (1e-3, 1e-3), |a, b| (a.0.max(b.0), a.1.max(b.1)));
            let half_h = half_h.max(half_w / aspect) / fill;
            let half_w = half_h * aspect;
            rots.iter()
                .map(|&r| orthographic(r, centre, radius, half_w, half_h))
                .collect()
        }
        Projection::Perspective { fov_deg } => {
            let fov = fov_deg.clamp(1.0, 170.0).to_radians();
            let tan_y = (fov * 0.5).tan() * fill;
            let tan_x = tan_y * aspect;
            // The nearest distance at which every point fits in every view.
            let dist = rots
                .par_iter()
                .map(|r| {
                    finite.iter().fold(1e-3f32, |d, &p| {
                        let q = r.transform_point3(p - centre);
                        d.max(q.x.abs() / tan_x + q.z).max(q.y.abs() / tan_y + q.z)
                    })
                })
                .reduce(|| 1e-3, f32::max);
            let near = (dist - radius).max(dist * 1e-3).max(1e-4);
            let far = dist + radius * 1.01 + 1e-3;
            rots.iter()
                .map(|r| {
                    let view = Mat4::from_translation(Vec3::new(0.0, 0.0, -dist))
                        * *r
                        * Mat4::from_translation(-centre);
                    Camera {
                        view,
                        proj: Mat4::perspective_rh(fov, aspect, near, far),
                    }
                })
                .collect()
        }
    }
}

pub use kiln_recipe_yaml::keys::LightSpace;

/// A directional light with ambient, as recipes and the command line give
/// it. The default — the one default of both — comes from the upper left
/// and front (yaw −45°, pitch 45° in camera space, so every direction of a
/// sheet is lit alike), white at full strength over 0.45 ambient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightSpec {
    /// Unit vector toward the light, in `space`: for `Camera`, x = screen
    /// right, y = up, z = toward the viewer, before the camera's yaw is applied.
    pub direction: Vec3,
    /// Whether `direction` turns with the camera.
    pub space: LightSpace,
    /// Light colour, each channel 0..=4.
    pub color: Vec3,
    /// Ambient colour, each channel 0..=4.
    pub ambient: Vec3,
}

impl Default for LightSpec {
    fn default() -> Self {
        LightSpec {
            direction: yaw_pitch_vector(LightSpec::DEFAULT_YAW, LightSpec::DEFAULT_PITCH),
            space: LightSpace::Camera,
            color: Vec3::from_array(LightSpec::DEFAULT_COLOR),
            ambient: Vec3::from_array(LightSpec::DEFAULT_AMBIENT),
        }
    }
}

impl LightSpec {
    /// Yaw of the default light, degrees (camera space: to the viewer's left).
    pub const DEFAULT_YAW: f32 = -45.0;
    /// Elevation of the default light, degrees.
    pub const DEFAULT_PITCH: f32 = 45.0;
    /// Colour of the default light.
    pub const DEFAULT_COLOR: [f32; 3] = [1.0, 1.0, 1.0];
    /// Ambient light of the default light.
    pub const DEFAULT_AMBIENT: [f32; 3] = [0.45, 0.45, 0.45];

    /// Direction toward the light in world space for a camera at `camera_yaw`
    /// degrees. A camera-space light turns about Y with the yaw only, so the
    /// light keeps its height above the ground whatever the camera's pitch.
    pub fn world_direction(&self, camera_yaw: f32) -> Vec3 {
        match self.space {
            LightSpace::World => self.direction,
            LightSpace::Camera => {
                (Mat3::from_rotation_y(camera_yaw.to_radians()) * self.direction).normalize()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ndc(cam: &Camera, p: Vec3) -> Vec3 {
        let c = cam.proj * cam.view * p.extend(1.0);
        c.truncate() / c.w
    }

    fn cloud() -> Vec<Vec3> {
        let mut pts = Vec::new();
        for i in 0..50 {
            let t = i as f32 * 0.7;
            pts.push(Vec3::new(
                t.sin() * 3.0 + 1.0,
                (t * 0.3).cos() * 5.0 + 5.0,
                t.cos() * 2.0 - 1.0,
            ));
        }
        pts
    }

    #[test]
    fn every_point_stays_in_frame_in_every_view() {
        let views: Vec<(f32, f32)> = (0..8)
            .map(|i| (i as f32 * 45.0, 30.0))
            .chain([(0.0, 90.0), (10.0, -90.0)])
            .collect();
        for projection in [
            Projection::Orthographic,
            Projection::Perspective { fov_deg: 35.0 },
        ] {
            let framing = Framing {
                projection,
                padding: 0.1,
                zoom: 1.0,
                pixels_per_unit: None,
            };
            for aspect in [1.0, 2.0, 0.5] {
                let cams = fit_cameras(&cloud(), &views, aspect, &framing);
                let mut widest = 0.0f32;
                for cam in &cams {
                    for p in cloud() {
                        let q = ndc(cam, p);
                        assert!(
                            q.x.abs() <= 0.8 + 1e-3 && q.y.abs() <= 0.8 + 1e-3,
                            "{projection:?} {aspect}: {q}"
                        );
                        assert!(q.z > 0.0 && q.z < 1.0, "depth {q}");
                        widest = widest.max(q.x.abs()).max(q.y.abs());
                    }
                }
                // Padding 0.1 leaves 80 % of the frame: the fit is tight.
                assert!(widest > 0.79, "{projection:?}: loose fit {widest}");
            }
        }
    }

    #[test]
    fn orthographic_scale_is_shared_by_all_views() {
        let views = [(0.0, 0.0), (90.0, 0.0)];
        let cams = fit_cameras(&cloud(), &views, 1.0, &Framing::default());
        assert_eq!(cams[0].proj, cams[1].proj);
    }

    #[test]
    fn yaw_zero_looks_at_the_front_and_yaw_90_from_plus_x() {
        assert!((yaw_pitch_vector(0.0, 0.0) - Vec3::Z).length() < 1e-6);
        assert!((yaw_pitch_vector(90.0, 0.0) - Vec3::X).length() < 1e-6);
        let cam = fit_cameras(
            &[Vec3::ZERO, Vec3::X, Vec3::Y],
            &[(0.0, 0.0)],
            1.0,
            &Framing::default(),
        )[0];
        // Seen from the front, +X is to the right and +Y up.
        assert!(ndc(&cam, Vec3::X).x > ndc(&cam, Vec3::ZERO).x);
        assert!(ndc(&cam, Vec3::Y).y > ndc(&cam, Vec3::ZERO).y);
    }
}
