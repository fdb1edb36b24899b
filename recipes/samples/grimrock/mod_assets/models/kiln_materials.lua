-- Materials of kiln's Grimrock samples (written by `cargo run --example make-samples`).
defineMaterial{
	name = "kiln_tentacle",
	diffuseMap = "mod_assets/textures/kiln_tentacle.tga",
	doubleSided = false,
	lighting = true,
	alphaTest = false,
	blendMode = "Opaque",
}

defineMaterial{
	name = "kiln_sign",
	diffuseMap = "mod_assets/textures/kiln_sign.tga",
	doubleSided = false,
	lighting = true,
	blendMode = "Opaque",
}
