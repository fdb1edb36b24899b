//! A scene node's local transform `T · L · S` as glTF TRS, clip by clip,
//! in glTF's frame.
//!
//! **Frame.** kiln draws `display · world`; the display is a translation
//! and a mirror or half turn (a diagonal of ±1) for every format. glTF
//! gets the translation on a root node and every node conjugated by the
//! diagonal, `A · local · A`, with vertices stored as `A · v`: the product
//! is kiln's `display · world · v`, no node carries a negative scale, and
//! rotations stay rotations. Any other display sits on the root node as
//! it is.
//!
//! **Nodes.** A node whose rotation is keyed is one TRS node. Otherwise
//! its rest matrix `L` (RSM2's `inv(M3_parent)·M3` is not always a
//! rotation) is written as a rotation and an axis scale when it is one,
//! and else as its singular value decomposition `U·Σ·Wᵀ` over two nodes: a
//! head (translation, `U`, `Σ`) and a shape child (`Wᵀ`, the keyed scale).
//! Exact either way. Only a keyed stretch (plain Arma RTMs with shear)
//! loses something: glTF keeps its diagonal, and the export says so.

use super::keys::Signal;
use crate::scene::decompose::{rotation_scale, svd, Svd};
use crate::scene::{Node, Track};
use glam::{Mat3, Mat4, Quat, Vec3};

/// How columns must be orthogonal for a rest matrix to count as a rotation
/// times an axis scale.
const AXES_TOLERANCE: f32 = 1e-6;

/// Where glTF's frame differs from kiln's model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frame {
    /// The diagonal `A` every node and vertex is conjugated by.
    pub mirror: Vec3,
    /// What the root node holds.
    pub root: Mat4,
}

impl Frame {
    pub fn of(display: Mat4) -> Frame {
        let m = Mat3::from_mat4(display);
        let d = Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z);
        let diagonal = Mat3::from_diagonal(d) == m && d.abs() == Vec3::ONE;
        if diagonal {
            Frame {
                mirror: d,
                root: Mat4::from_translation(display.w_axis.truncate()),
            }
        } else {
            Frame {
                mirror: Vec3::ONE,
                root: display,
            }
        }
    }

    pub fn vec(&self, v: Vec3) -> Vec3 {
        v * self.mirror
    }

    /// `A · R(q) · A` as a quaternion.
    pub fn quat(&self, q: Quat) -> Quat {
        let a = self.mirror;
        let det = a.x * a.y * a.z;
        Quat::from_xyzw(det * a.x * q.x, det * a.y * q.y, det * a.z * q.z, q.w)
    }

    /// `A · m · A`.
    pub fn mat(&self, m: Mat4) -> Mat4 {
        let a = Mat4::from_scale(self.mirror);
        a * m * a
    }

    /// What vertices are multiplied by.
    pub fn vertex(&self) -> Mat4 {
        Mat4::from_scale(self.mirror)
    }
}

/// How far glTF's value may depart from kiln's between keys.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tolerances {
    pub translation: f32,
    pub rotation: f32,
    pub scale: f32,
}

/// How a node's linear part is written in one clip.
enum Form {
    /// A keyed rotation (and an axis scale or stretch).
    Rotating,
    /// The rest matrix is a rotation times an axis scale.
    Axes(Quat, Vec3),
    /// The rest matrix needs two nodes.
    Split(Svd),
}

fn keyed<T>(t: &Option<Track<T>>) -> Option<&Track<T>> {
    t.as_ref().filter(|t| t.values.len().min(t.times.len()) > 0)
}

fn form(node: &Node) -> Form {
    if keyed(&node.anim.rotation).is_some() {
        return Form::Rotating;
    }
    match rotation_scale(node.linear, AXES_TOLERANCE) {
        Some((q, s)) => Form::Axes(q, s),
        None => Form::Split(svd(node.linear)),
    }
}

/// Whether the node needs a shape child in this clip.
pub(super) fn needs_shape(node: &Node) -> bool {
    matches!(form(node), Form::Split(_))
}

/// A node's channels in one clip: its head node's, and its shape child's.
pub(super) struct NodeSignals<'a> {
    pub translation: Signal<'a, Vec3>,
    pub rotation: Signal<'a, Quat>,
    pub scale: Signal<'a, Vec3>,
    pub shape_rotation: Signal<'a, Quat>,
    pub shape_scale: Signal<'a, Vec3>,
    /// The largest part of a keyed stretch glTF cannot hold (its
    /// off-diagonal entries), when the node has one.
    pub lost_stretch: Option<f32>,
    /// The node's rotations are nlerped (Grimrock) where glTF slerps.
    pub nlerp: bool,
}

fn knots<T>(t: Option<&Track<T>>) -> Vec<f32> {
    t.map(|t| t.times.clone()).unwrap_or_default()
}

fn constant<'a, V: Copy + 'a>(v: V, tolerance: f32) -> Signal<'a, V> {
    Signal {
        eval: Box::new(move |_| v),
        knots: Vec::new(),
        step: false,
        tolerance,
    }
}

fn is_step<T>(t: Option<&Track<T>>) -> bool {
    t.is_some_and(|t| t.interp == crate::scene::Interp::Step)
}

/// The node's channels, as kiln's `node_local` evaluates them.
pub(super) fn signals<'a>(node: &'a Node, frame: Frame, tol: Tolerances) -> NodeSignals<'a> {
    let tr = keyed(&node.anim.translation);
    let rot = keyed(&node.anim.rotation);
    let sc = keyed(&node.anim.scale);
    let stretch = keyed(&node.anim.stretch);
    let rest_t = node.translation;
    let rest_s = node.scale;
    let translation = Signal {
        eval: Box::new(move |u| frame.vec(tr.and_then(|k| k.sample(u)).unwrap_or(rest_t))),
        knots: knots(tr),
        step: is_step(tr),
        tolerance: tol.translation,
    };
    let scale_at = move |u: f32| sc.and_then(|k| k.sample(u)).unwrap_or(rest_s);
    let scale_signal = |f: Box<dyn Fn(f32) -> Vec3 + 'a>| Signal {
        eval: f,
        knots: knots(sc),
        step: is_step(sc),
        tolerance: tol.scale,
    };
    let mut out = match form(node) {
        Form::Rotating => {
            let rot = rot.expect("a rotating node has rotation keys");
            let rotation = Signal {
                eval: Box::new(move |u| {
                    frame.quat(rot.sample(u).unwrap_or(Quat::IDENTITY).normalize())
                }),
                knots: knots(Some(rot)),
                step: is_step(Some(rot)),
                tolerance: tol.rotation,
            };
            let (scale, lost_stretch) = match stretch {
                Some(k) => {
                    let lost = k
                        .values
                        .iter()
                        .map(|m| {
                            [
                                m.y_axis.x, m.z_axis.x, m.z_axis.y, m.x_axis.y, m.x_axis.z,
                                m.y_axis.z,
                            ]
                            .iter()
                            .fold(0.0f32, |a, x| a.max(x.abs()))
                        })
                        .fold(0.0f32, f32::max);
                    let s = Signal {
                        eval: Box::new(move |u: f32| {
                            let m = k.sample(u).unwrap_or(Mat3::IDENTITY);
                            Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z)
                        }),
                        knots: knots(Some(k)),
                        step: is_step(Some(k)),
                        tolerance: tol.scale,
                    };
                    (s, Some(lost))
                }
                None => (scale_signal(Box::new(scale_at)), None),
            };
            NodeSignals {
                translation,
                rotation,
                scale,
                shape_rotation: constant(Quat::IDENTITY, tol.rotation),
                shape_scale: constant(Vec3::ONE, tol.scale),
                lost_stretch,
                nlerp: rot.interp == crate::scene::Interp::Nlerp,
            }
        }
        Form::Axes(q, k) => NodeSignals {
            translation,
            rotation: constant(frame.quat(q), tol.rotation),
            scale: scale_signal(Box::new(move |u| k * scale_at(u))),
            shape_rotation: constant(Quat::IDENTITY, tol.rotation),
            shape_scale: constant(Vec3::ONE, tol.scale),
            lost_stretch: None,
            nlerp: false,
        },
        Form::Split(d) => NodeSignals {
            translation,
            rotation: constant(frame.quat(d.u), tol.rotation),
            scale: constant(d.s, tol.scale),
            shape_rotation: constant(frame.quat(d.w.conjugate()), tol.rotation),
            shape_scale: scale_signal(Box::new(scale_at)),
            lost_stretch: None,
            nlerp: false,
        },
    };
    // Constant signals keep no knots; nothing else to adjust.
    out.lost_stretch = out.lost_stretch.filter(|&l| l > 0.0);
    out
}

/// A fixed transform as one TRS node, or a head and a shape node when it
/// is no rotation times an axis scale: `[(translation, rotation, scale)]`.
pub(super) fn fixed_nodes(m: Mat4) -> Vec<(Vec3, Quat, Vec3)> {
    let t = m.w_axis.truncate();
    let l = Mat3::from_mat4(m);
    match rotation_scale(l, AXES_TOLERANCE) {
        Some((q, s)) => vec![(t, q, s)],
        None => {
            let d = svd(l);
            vec![(t, d.u, d.s), (Vec3::ZERO, d.w.conjugate(), Vec3::ONE)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local_of(t: Vec3, q: Quat, s: Vec3) -> Mat4 {
        Mat4::from_scale_rotation_translation(s, q, t)
    }

    #[test]
    fn conjugating_by_the_display_mirror_keeps_the_product() {
        let display = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0))
            * Mat4::from_scale(Vec3::new(1.0, 1.0, -1.0));
        let f = Frame::of(display);
        assert_eq!(f.mirror, Vec3::new(1.0, 1.0, -1.0));
        let q = Quat::from_axis_angle(Vec3::new(0.3, -0.5, 0.8).normalize(), 1.2);
        let local = local_of(Vec3::new(4.0, 5.0, 6.0), q, Vec3::new(1.0, 2.0, 3.0));
        let conj = local_of(
            f.vec(Vec3::new(4.0, 5.0, 6.0)),
            f.quat(q),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let v = Vec3::new(0.7, -0.2, 0.4);
        let kiln = display * local;
        let gltf = f.root * conj * f.vertex();
        assert!((kiln.transform_point3(v) - gltf.transform_point3(v)).length() < 1e-5);
        // RSM1's half turn about X is a rotation, conjugated the same way.
        let f1 = Frame::of(Mat4::from_scale(Vec3::new(1.0, -1.0, -1.0)));
        let back = f1.root * local_of(Vec3::ZERO, f1.quat(q), Vec3::ONE) * f1.vertex();
        let want = Mat4::from_scale(Vec3::new(1.0, -1.0, -1.0)) * Mat4::from_quat(q);
        assert!((back.transform_point3(v) - want.transform_point3(v)).length() < 1e-5);
    }

    #[test]
    fn a_sheared_rest_matrix_splits_into_two_exact_nodes() {
        let l = Mat3::from_cols(
            Vec3::new(1.0, 0.2, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.1, 0.0, 0.5),
        );
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)) * Mat4::from_mat3(l);
        let parts = fixed_nodes(m);
        assert_eq!(parts.len(), 2);
        let product = parts
            .iter()
            .fold(Mat4::IDENTITY, |acc, &(t, q, s)| acc * local_of(t, q, s));
        assert!((product - m).to_cols_array().iter().all(|x| x.abs() < 1e-5));
    }
}
