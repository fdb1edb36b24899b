use crate::common;
#[test]
fn probe_box_centres() {
    let (Some(agm), Some(dayz)) = (common::corpus("arma/KoffeinFlummi+AGM/AGM_FastRoping"), common::corpus("arma/earlbalai+DayZ-Source")) else { return };
    let mut spec = kiln::spec::ModelSpec::new(agm.join("animbase/agm_fastroping.p3d"));
    spec.animation.duration = Some(1.5);
    spec.animation.skeleton = Some(kiln::spec::SkeletonSpec::Config { config: kiln::FileRef::from(dayz.join("Legacy/dayz_anim/zmb/model.cfg").as_path()), class: "OFP2_ManSkeleton".into() });
    let m = common::animated(&spec, &dayz.join("SQF/dayz_anim/zmb/zombie2_walk.rtm")).unwrap();
    let root = kiln::scene::root_motion::root_node(&m);
    println!("root {:?} {:?} travel {:?} dur {}", root, root.map(|r| m.nodes[r].name.clone()), m.travel, m.duration);
    let d = m.duration;
    for k in 0..=15 {
        let t = d * k as f32 / 15.0;
        let p = kiln::scene::pose(&m, t);
        let pts: Vec<glam::Vec3> = kiln::render::posed_points(&p).collect();
        let (lo, hi) = pts.iter().fold((f32::MAX, f32::MIN), |(a, b), q| (a.min(q.z), b.max(q.z)));
        let (xlo, xhi) = pts.iter().fold((f32::MAX, f32::MIN), |(a, b), q| (a.min(q.x), b.max(q.x)));
        let bc = (lo + hi) * 0.5;
        let mean = pts.iter().map(|q| q.z).sum::<f32>() / pts.len() as f32;
        let hip = root.map(|r| kiln::scene::root_motion::drawn_offset(&m, r, t)).unwrap_or_default();
        println!("{k:2} box {:.3} mean {:.3} hip {:.3},{:.3}  box-hip {:.3} mean-hip {:.3} w {:.3} x {:.3}..{:.3}", bc, mean, hip.x, hip.z, bc - hip.z, mean - hip.z, hi - lo, xlo, xhi);
    }
}
