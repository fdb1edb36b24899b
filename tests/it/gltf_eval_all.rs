//! The rest of the test evaluator: morph weights (animated, node, mesh)
//! and every triangle-drawing primitive of the default scene, morphed and
//! skinned with every JOINTS/WEIGHTS set.

use super::{f64s, Gltf};
use glam::{DMat4, DVec3, DVec4};
use serde_json::Value;

impl Gltf {
    /// Morph weights of every node at time `t` of animation `anim`: an
    /// animated `weights` channel, else the node's, else its mesh's.
    fn weights(&self, anim: Option<usize>, t: f64) -> Vec<Vec<f64>> {
        let nodes = self.json["nodes"].as_array().cloned().unwrap_or_default();
        let mut w: Vec<Vec<f64>> = nodes
            .iter()
            .map(|n| {
                if n.get("weights").is_some() {
                    f64s(&n["weights"])
                } else {
                    n["mesh"]
                        .as_u64()
                        .map(|m| f64s(&self.json["meshes"][m as usize]["weights"]))
                        .unwrap_or_default()
                }
            })
            .collect();
        if let Some(a) = anim {
            let anim = &self.json["animations"][a];
            for ch in anim["channels"].as_array().unwrap() {
                if ch["target"]["path"] != "weights" {
                    continue;
                }
                let node = ch["target"]["node"].as_u64().unwrap() as usize;
                let sampler = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
                // A weights output is one scalar per target per key: sample
                // each target on its own column.
                let mesh = nodes[node]["mesh"].as_u64().unwrap() as usize;
                let targets = self.json["meshes"][mesh]["primitives"][0]["targets"]
                    .as_array()
                    .unwrap()
                    .len();
                w[node] = self.sample_columns(sampler, t, targets);
            }
        }
        w
    }

    /// `sample` for an output of `n` scalars per key.
    fn sample_columns(&self, sampler: &Value, t: f64, n: usize) -> Vec<f64> {
        let times: Vec<f64> = self
            .accessor(sampler["input"].as_u64().unwrap() as usize)
            .into_iter()
            .map(|e| e[0])
            .collect();
        let flat: Vec<f64> = self
            .accessor(sampler["output"].as_u64().unwrap() as usize)
            .into_iter()
            .map(|e| e[0])
            .collect();
        let out: Vec<Vec<f64>> = flat.chunks(n).map(|c| c.to_vec()).collect();
        let interp = sampler["interpolation"].as_str().unwrap_or("LINEAR");
        let per = if interp == "CUBICSPLINE" { 3 } else { 1 };
        let value = |k: usize| out[per * k + per / 2].clone();
        let last = times.len() - 1;
        if t <= times[0] {
            return value(0);
        }
        if t >= times[last] {
            return value(last);
        }
        let i = times.partition_point(|&x| x <= t) - 1;
        let dt = times[i + 1] - times[i];
        let s = (t - times[i]) / dt;
        match interp {
            "STEP" => value(i),
            "CUBICSPLINE" => {
                let (p0, m0, p1, m1) = (
                    &out[3 * i + 1],
                    &out[3 * i + 2],
                    &out[3 * i + 4],
                    &out[3 * i + 3],
                );
                let (s2, s3) = (s * s, s * s * s);
                (0..n)
                    .map(|c| {
                        (2.0 * s3 - 3.0 * s2 + 1.0) * p0[c]
                            + (s3 - 2.0 * s2 + s) * dt * m0[c]
                            + (-2.0 * s3 + 3.0 * s2) * p1[c]
                            + (s3 - s2) * dt * m1[c]
                    })
                    .collect()
            }
            _ => {
                let (a, b) = (value(i), value(i + 1));
                a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect()
            }
        }
    }

    /// Every triangle-drawing primitive of the default scene as drawn at
    /// time `t` of animation `anim`, morphs and every JOINTS/WEIGHTS set
    /// applied: nodes depth first from the scene's roots in index order,
    /// children as listed, primitives in order; each primitive as its
    /// triangles' corners (strips and fans unrolled as the specification
    /// numbers them).
    pub fn draw_all(&self, anim: Option<usize>, t: f64) -> Vec<Vec<[DVec3; 3]>> {
        let (locals, _) = self.pose(anim, t);
        let weights = self.weights(anim, t);
        let nodes = self.json["nodes"].as_array().cloned().unwrap_or_default();
        let scene = &self.json["scenes"][self.json["scene"].as_u64().unwrap_or(0) as usize];
        let mut roots: Vec<usize> = scene["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap() as usize)
            .collect();
        roots.sort();
        let mut world = vec![DMat4::IDENTITY; nodes.len()];
        let mut order = Vec::new();
        let mut stack: Vec<(usize, DMat4)> =
            roots.iter().rev().map(|&r| (r, DMat4::IDENTITY)).collect();
        while let Some((n, parent)) = stack.pop() {
            world[n] = parent * locals[n];
            order.push(n);
            if let Some(c) = nodes[n]["children"].as_array() {
                for child in c.iter().rev() {
                    stack.push((child.as_u64().unwrap() as usize, world[n]));
                }
            }
        }
        // Joint worlds need every node, in the scene or not.
        let all_world = |j: usize| -> DMat4 {
            let parent_of = |i: usize| {
                nodes.iter().position(|n| {
                    n["children"]
                        .as_array()
                        .is_some_and(|c| c.iter().any(|x| x.as_u64() == Some(i as u64)))
                })
            };
            let mut m = DMat4::IDENTITY;
            let mut cur = Some(j);
            while let Some(i) = cur {
                m = locals[i] * m;
                cur = parent_of(i);
            }
            m
        };
        let mut out = Vec::new();
        for &n in &order {
            let Some(mi) = nodes[n]["mesh"].as_u64() else {
                continue;
            };
            let mesh = &self.json["meshes"][mi as usize];
            for pr in mesh["primitives"].as_array().unwrap() {
                let mode = pr["mode"].as_u64().unwrap_or(4);
                if !(4..=6).contains(&mode) {
                    continue;
                }
                let attrs = &pr["attributes"];
                let mut p: Vec<DVec3> = self
                    .accessor(attrs["POSITION"].as_u64().unwrap() as usize)
                    .iter()
                    .map(|x| DVec3::new(x[0], x[1], x[2]))
                    .collect();
                if let Some(targets) = pr["targets"].as_array() {
                    for (k, tg) in targets.iter().enumerate() {
                        let w = weights[n].get(k).copied().unwrap_or(0.0);
                        if let (Some(a), true) = (tg["POSITION"].as_u64(), w != 0.0) {
                            for (v, d) in p.iter_mut().zip(self.accessor(a as usize)) {
                                *v += DVec3::new(d[0], d[1], d[2]) * w;
                            }
                        }
                    }
                }
                let drawn: Vec<DVec3> = match nodes[n]["skin"].as_u64() {
                    Some(s) => {
                        let mats = self.joint_matrices(s as usize, all_world);
                        let mut sets = Vec::new();
                        let mut k = 0;
                        while let (Some(j), Some(w)) = (
                            attrs[format!("JOINTS_{k}")].as_u64(),
                            attrs[format!("WEIGHTS_{k}")].as_u64(),
                        ) {
                            sets.push((self.accessor(j as usize), self.accessor(w as usize)));
                            k += 1;
                        }
                        p.iter()
                            .enumerate()
                            .map(|(v, x)| {
                                let x = DVec4::new(x.x, x.y, x.z, 1.0);
                                let mut acc = DVec4::ZERO;
                                let mut total = 0.0;
                                for (js, ws) in &sets {
                                    for c in 0..4 {
                                        acc += mats[js[v][c] as usize] * x * ws[v][c];
                                        total += ws[v][c];
                                    }
                                }
                                (acc / total).truncate()
                            })
                            .collect()
                    }
                    None => p.iter().map(|x| world[n].transform_point3(*x)).collect(),
                };
                let idx: Vec<usize> = match pr["indices"].as_u64() {
                    Some(a) => self
                        .accessor(a as usize)
                        .iter()
                        .map(|e| e[0] as usize)
                        .collect(),
                    None => (0..drawn.len()).collect(),
                };
                let tris: Vec<[usize; 3]> = match mode {
                    4 => idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
                    5 => (0..idx.len().saturating_sub(2))
                        .map(|i| {
                            if i % 2 == 0 {
                                [idx[i], idx[i + 1], idx[i + 2]]
                            } else {
                                [idx[i], idx[i + 2], idx[i + 1]]
                            }
                        })
                        .collect(),
                    _ => (0..idx.len().saturating_sub(2))
                        .map(|i| [idx[i + 1], idx[i + 2], idx[0]])
                        .collect(),
                };
                out.push(
                    tris.iter()
                        .map(|t| [drawn[t[0]], drawn[t[1]], drawn[t[2]]])
                        .collect(),
                );
            }
        }
        out
    }
}
