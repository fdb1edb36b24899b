//! Splitting 3×3 linear maps into what keyframe tracks and glTF nodes can
//! hold: rotations, and scales along axes.
//!
//! Not every linear map is a rotation times an axis scale: plain Arma RTM
//! matrices carry a little shear, and an RSM2 rest matrix
//! (`inv(M3_parent)·M3`) may scale along directions that are not the
//! node's own axes. The polar decomposition `M = R·K` (R a rotation, K
//! symmetric) keeps all of such a map and interpolates well; the singular
//! value decomposition `M = U·diag(s)·Wᵀ` writes any map as two rotations
//! around one axis scale, which is two glTF TRS nodes. Both are computed in
//! f64 from the eigenvectors of the symmetric `MᵀM` (cyclic Jacobi), so the
//! results are deterministic and accurate to f32.

use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

/// `M = U·diag(s)·Wᵀ` with `U` and `W` proper rotations. When `M` mirrors,
/// the last entry of `s` is negative; `s` is otherwise descending.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Svd {
    /// The left rotation `U`.
    pub u: Quat,
    /// The singular values.
    pub s: Vec3,
    /// The right rotation `W`.
    pub w: Quat,
}

/// Eigenvectors and eigenvalues of a symmetric matrix: `M = V·diag(λ)·Vᵀ`
/// with `V` a proper rotation and `λ` descending.
pub fn symmetric_eigen(m: DMat3) -> (DMat3, DVec3) {
    // a[row][col]; only the symmetric part of `m` is used.
    let c = m.to_cols_array_2d();
    let mut a = [[0.0f64; 3]; 3];
    for (r, row) in a.iter_mut().enumerate() {
        for (k, x) in row.iter_mut().enumerate() {
            *x = 0.5 * (c[k][r] + c[r][k]);
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale = a.iter().flatten().map(|x| x.abs()).fold(0.0, f64::max);
    for _ in 0..64 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= scale * 1e-17 || off == 0.0 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let cs = 1.0 / (t * t + 1.0).sqrt();
            let sn = t * cs;
            let apq = a[p][q];
            a[p][p] -= t * apq;
            a[q][q] += t * apq;
            a[p][q] = 0.0;
            a[q][p] = 0.0;
            // Rows and columns of a symmetric matrix move together.
            #[allow(clippy::needless_range_loop)]
            for r in 0..3 {
                if r != p && r != q {
                    let (arp, arq) = (a[r][p], a[r][q]);
                    a[r][p] = cs * arp - sn * arq;
                    a[p][r] = a[r][p];
                    a[r][q] = sn * arp + cs * arq;
                    a[q][r] = a[r][q];
                }
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = cs * vp - sn * vq;
                row[q] = sn * vp + cs * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    let col = |i: usize| DVec3::new(v[0][i], v[1][i], v[2][i]);
    let (c0, c1) = (col(order[0]), col(order[1]));
    // The third axis follows from the first two, which makes V proper and
    // keeps it orthonormal to rounding.
    let c2 = c0.cross(c1);
    (
        DMat3::from_cols(c0, c1, c2),
        DVec3::new(
            a[order[0]][order[0]],
            a[order[1]][order[1]],
            a[order[2]][order[2]],
        ),
    )
}

/// The singular value decomposition of `m` (see [`Svd`]).
pub fn svd(m: Mat3) -> Svd {
    let md = m.as_dmat3();
    let (w, l) = symmetric_eigen(md.transpose() * md);
    let sigma = l.max(DVec3::ZERO).to_array().map(f64::sqrt);
    let tiny = sigma[0] * 1e-12;
    let mw = |i: usize| md * w.col(i);
    let u0 = if sigma[0] > 0.0 {
        mw(0) / sigma[0]
    } else {
        w.col(0)
    };
    let u1 = if sigma[1] > tiny {
        let u = mw(1) / sigma[1];
        (u - u0 * u0.dot(u)).normalize()
    } else {
        u0.any_orthonormal_vector()
    };
    let u2 = u0.cross(u1);
    let s2 = u2.dot(mw(2));
    let u = DMat3::from_cols(u0, u1, u2);
    Svd {
        u: rotation_quat(u),
        s: Vec3::new(sigma[0] as f32, sigma[1] as f32, s2 as f32),
        w: rotation_quat(w),
    }
}

/// The polar decomposition `m = R·K`: `R` a rotation, `K` symmetric (with a
/// negative eigenvalue when `m` mirrors).
pub fn polar(m: Mat3) -> (Quat, Mat3) {
    let d = svd(m);
    let w = DMat3::from_quat(d.w.as_dquat());
    let k = w * DMat3::from_diagonal(d.s.as_dvec3()) * w.transpose();
    let r = d.u.as_dquat() * d.w.as_dquat().conjugate();
    (r.normalize().as_quat(), k.as_mat3())
}

/// `m` as a rotation times an axis scale, `R·diag(s)`, when its columns are
/// orthogonal to within `tol` (cosine of the angle between two columns).
/// A mirroring `m` gets a negative x scale. `None` for shears, scales along
/// other directions and degenerate maps.
pub fn rotation_scale(m: Mat3, tol: f32) -> Option<(Quat, Vec3)> {
    let c = [m.x_axis, m.y_axis, m.z_axis].map(|v| v.as_dvec3());
    let len = c.map(|v| v.length());
    if len
        .iter()
        .any(|&l| l.is_nan() || l <= 0.0 || !l.is_finite())
    {
        return None;
    }
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        if c[i].dot(c[j]).abs() > f64::from(tol) * len[i] * len[j] {
            return None;
        }
    }
    let mut s = DVec3::from(len);
    if m.determinant() < 0.0 {
        s.x = -s.x;
    }
    let r = DMat3::from_cols(c[0] / s.x, c[1] / s.y, c[2] / s.z);
    Some((rotation_quat(r), s.as_vec3()))
}

/// The quaternion of a proper rotation matrix, normalised in f64.
fn rotation_quat(r: DMat3) -> Quat {
    DQuat::from_mat3(&r).normalize().as_quat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Mat3, b: Mat3, tol: f32) -> bool {
        (a - b).to_cols_array().iter().all(|x| x.abs() <= tol)
    }

    fn compose(d: &Svd) -> Mat3 {
        Mat3::from_quat(d.u) * Mat3::from_diagonal(d.s) * Mat3::from_quat(d.w).transpose()
    }

    #[test]
    fn svd_rebuilds_shears_mirrors_and_degenerate_maps() {
        let shear = Mat3::from_cols(
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.3, 1.0, 0.0),
            Vec3::new(0.0, 0.1, 2.0),
        );
        let turned = Mat3::from_quat(Quat::from_euler(glam::EulerRot::YXZ, 0.4, -1.1, 2.0));
        let mirror = Mat3::from_diagonal(Vec3::new(1.0, 1.0, -1.0)) * turned;
        let flat = Mat3::from_cols(Vec3::X, Vec3::Y, Vec3::ZERO);
        for m in [
            shear,
            turned * shear,
            mirror,
            mirror * shear,
            flat,
            Mat3::ZERO,
        ] {
            let d = svd(m);
            assert!(close(compose(&d), m, 2e-6), "{m:?} → {d:?}");
            assert!((d.u.length() - 1.0).abs() < 1e-6 && (d.w.length() - 1.0).abs() < 1e-6);
            assert_eq!(d.s.z < 0.0, m.determinant() < -1e-9, "{m:?}");
        }
    }

    #[test]
    fn polar_keeps_the_rotation_of_a_scaled_rotation() {
        let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.9);
        let m = Mat3::from_quat(q) * Mat3::from_diagonal(Vec3::new(1.5, 0.5, 2.0));
        let (r, k) = polar(m);
        assert!(r.angle_between(q) < 1e-6);
        assert!(close(
            k,
            Mat3::from_diagonal(Vec3::new(1.5, 0.5, 2.0)),
            1e-6
        ));
        let shear = Mat3::from_cols(Vec3::X, Vec3::new(0.01, 1.0, 0.0), Vec3::Z);
        let (r, k) = polar(Mat3::from_quat(q) * shear);
        assert!(close(
            Mat3::from_quat(r) * k,
            Mat3::from_quat(q) * shear,
            1e-6
        ));
        assert!(close(k, k.transpose(), 1e-7));
    }

    #[test]
    fn rotation_scale_only_for_orthogonal_columns() {
        let q = Quat::from_rotation_y(0.7);
        let m = Mat3::from_quat(q) * Mat3::from_diagonal(Vec3::new(2.0, 3.0, 4.0));
        let (r, s) = rotation_scale(m, 1e-6).unwrap();
        assert!(r.angle_between(q) < 1e-6);
        assert!((s - Vec3::new(2.0, 3.0, 4.0)).abs().max_element() < 1e-6);
        let mirrored = m * Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0));
        let (r, s) = rotation_scale(mirrored, 1e-6).unwrap();
        assert!(close(
            Mat3::from_quat(r) * Mat3::from_diagonal(s),
            mirrored,
            1e-5
        ));
        let shear = Mat3::from_cols(Vec3::X, Vec3::new(0.01, 1.0, 0.0), Vec3::Z);
        assert!(rotation_scale(shear, 1e-6).is_none());
        assert!(rotation_scale(Mat3::ZERO, 1e-6).is_none());
    }
}
