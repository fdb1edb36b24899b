//! Cameras and framing.
//!
//! Framing is computed once per clip from every sampled frame and every
//! direction, so a sprite never jitters or rescales from frame to frame or
//! from one direction to the next.
//!
//! Conventions: kiln's world is right-handed, Y up, the model's front faces
//! +Z. Yaw 0 looks at the front (camera on +Z); positive yaw moves the camera
//! counter-clockwise seen from above (toward +X). Pitch is the camera's
//! elevation above the horizon in degrees.

use crate::raster::Camera;
use glam::{Mat4, Vec3};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    Orthographic,
    /// Vertical field of view in degrees.
    Perspective {
        fov_deg: f32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Framing {
    pub projection: Projection,
    /// Empty margin around the model as a fraction of the image (0.05 = 5 % each side).
    pub padding: f32,
    /// > 1 enlarges the model beyond the fitted size (may crop), < 1 shrinks it.
    pub zoom: f32,
}

impl Default for Framing {
    fn default() -> Self {
        Framing {
            projection: Projection::Orthographic,
            padding: 0.05,
            zoom: 1.0,
        }
    }
}

/// Unit vector from the target toward the camera for a yaw/pitch in degrees.
pub fn view_direction(yaw_deg: f32, pitch_deg: f32) -> Vec3 {
    let (y, p) = (yaw_deg.to_radians(), pitch_deg.to_radians());
    Vec3::new(y.sin() * p.cos(), p.sin(), y.cos() * p.cos())
}

/// The rotation-only view matrix looking from `dir` toward the origin.
fn view_rotation(dir: Vec3) -> Mat4 {
    // Straight up or down: any horizontal up vector works; pick one that
    // keeps yaw 0's image upright.
    let up = if dir.cross(Vec3::Y).length_squared() < 1e-8 {
        Vec3::NEG_Z * dir.y.signum()
    } else {
        Vec3::Y
    };
    Mat4::look_to_rh(Vec3::ZERO, -dir, up)
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
    let rots: Vec<Mat4> = views
        .iter()
        .map(|&(y, p)| view_rotation(view_direction(y, p)))
        .collect();

    match framing.projection {
        Projection::Orthographic => {
            // Largest half-extent over every view, then one scale for all.
            let mut half_w = 1e-3f32;
            let mut half_h = 1e-3f32;
            for r in &rots {
                for &p in &finite {
                    let q = r.transform_point3(p - centre);
                    half_w = half_w.max(q.x.abs());
                    half_h = half_h.max(q.y.abs());
                }
            }
            let half_h = half_h.max(half_w / aspect) / fill;
            let half_w = half_h * aspect;
            rots.iter()
                .map(|r| {
                    let dist = radius * 2.0 + 1.0;
                    let view = Mat4::from_translation(Vec3::new(0.0, 0.0, -dist))
                        * *r
                        * Mat4::from_translation(-centre);
                    let proj = Mat4::orthographic_rh(
                        -half_w,
                        half_w,
                        -half_h,
                        half_h,
                        dist - radius * 1.01 - 1e-3,
                        dist + radius * 1.01 + 1e-3,
                    );
                    Camera { view, proj }
                })
                .collect()
        }
        Projection::Perspective { fov_deg } => {
            let fov = fov_deg.clamp(1.0, 170.0).to_radians();
            let tan_y = (fov * 0.5).tan() * fill;
            let tan_x = tan_y * aspect;
            // The nearest distance at which every point fits in every view.
            let mut dist = 1e-3f32;
            for r in &rots {
                for &p in &finite {
                    let q = r.transform_point3(p - centre);
                    dist = dist
                        .max(q.x.abs() / tan_x + q.z)
                        .max(q.y.abs() / tan_y + q.z);
                }
            }
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

/// A light given relative to the camera (yaw/pitch in degrees; yaw 0 pitch 0
/// shines from the camera toward the model), turned into world space, so
/// every direction of a sprite sheet is lit alike.
pub fn camera_relative_light_dir(camera: &Camera, yaw_deg: f32, pitch_deg: f32) -> Vec3 {
    let local = view_direction(yaw_deg, pitch_deg);
    let inv = camera.view.inverse();
    inv.transform_vector3(local).normalize_or(Vec3::Y)
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
        assert!((view_direction(0.0, 0.0) - Vec3::Z).length() < 1e-6);
        assert!((view_direction(90.0, 0.0) - Vec3::X).length() < 1e-6);
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
