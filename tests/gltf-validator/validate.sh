#!/usr/bin/env bash
# Exports every animated sample and corpus model as animated glTF with the
# given kiln binary, then runs the Khronos glTF-Validator over the files.
# Needs Node.js; `npm ci` fetches the pinned validator once (network), after
# which it runs offline.
#
#   cargo build --release
#   tests/gltf-validator/validate.sh target/release/kiln
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kiln="$(cd "$(dirname "${1:?usage: validate.sh KILN_BINARY}")" && pwd)/$(basename "$1")"
out="$root/target/gltf-validation"
corpus="$root/../shared/corpus"
samples="$root/recipes/samples"
rm -rf "$out" && mkdir -p "$out"
[ -d "$here/node_modules/gltf-validator" ] || (cd "$here" && npm ci --no-audit --no-fund)

ex() { "$kiln" export "$@" 2>>"$out/export.log"; }

ex "$samples/data/model/kiln/windmill.rsm2" --clip -o "$out/windmill.glb"
ex "$samples/data/model/kiln/beacon.rsm" --clip -o "$out/beacon.glb"
ex "$samples/grimrock/mod_assets/models/kiln_tentacle.model" --clip \
  --animation "$samples/grimrock/mod_assets/animations/kiln_tentacle_wave.animation" -o "$out/tentacle.glb"
lever="$samples/arma/kiln_lever"
ex "$lever/kiln_lever.p3d" --clip --duration 1.5 --animation "$lever/anim/kiln_lever_swing.rtm" -o "$out/lever.glb"
ex "$lever/kiln_lever.p3d" --clip --duration 1.5 --skeleton-config "$lever/model.cfg" \
  --skeleton-class KilnLeverSkeleton --animation "$lever/anim/kiln_lever_swing_bin.rtm" -o "$out/lever_bin.glb"

if [ -d "$corpus" ]; then
  ex "$corpus/ro/Tokeiburu+RSM2/Rsm2/bin/Debug/data/goldberg_s_01.rsm2" --clip -o "$out/goldberg.glb"
  w="$corpus/grimrock/grimrock+eob1-waterdeep/mod_assets/plugins/skeleton_warrior_axe"
  ex "$w/models/skeleton_warrior_axe.model" --clip -o "$out/skeleton_warrior.glb" \
    --animation "$w/animations/skeleton_warrior_axe_walk.animation" \
    --animation "$w/animations/skeleton_warrior_axe_idle.animation" \
    --animation "$w/animations/skeleton_warrior_axe_attack.animation" \
    --animation "$w/animations/skeleton_warrior_axe_hit_back.animation" \
    --clip-name walk --clip-name idle --clip-name attack --clip-name hit_back
  n="$corpus/grimrock/7Soul+log2_the_old_nexus/mod_assets/fire_cave"
  ex "$n/models/env/rc_lever.model" --clip -o "$out/rc_lever.glb" \
    --animation "$n/animations/rc_lever_up.animation" --animation "$n/animations/rc_lever_down.animation"
  ex "$n/models/env/rc_button.model" --clip -o "$out/rc_button.glb" \
    --animation "$n/animations/rc_button_press.animation"
  ex "$n/models/env/rc_molten_floaty.model" --clip -o "$out/rc_molten_floaty.glb" \
    --animation "$n/animations/rc_molten_floaty_idle.animation" \
    --animation "$n/animations/rc_molten_floaty_move.animation" \
    --animation "$n/animations/rc_molten_floaty_start.animation"
  agm="$corpus/arma/KoffeinFlummi+AGM"
  dayz="$corpus/arma/earlbalai+DayZ-Source"
  rig="$agm/AGM_FastRoping/animbase/agm_fastroping.p3d"
  skel=(--skeleton-config "$dayz/Legacy/dayz_anim/zmb/model.cfg" --skeleton-class OFP2_ManSkeleton)
  ex "$rig" --clip --animation "$agm/AGM_FastRoping/data/agm_fastroping.rtm" -o "$out/agm_fastroping.glb"
  ex "$rig" --clip --animation "$agm/AGM_Goggles/anim/WipeGlasses.rtm" -o "$out/agm_wipeglasses.glb"
  ex "$rig" --clip --duration 1.5 "${skel[@]}" -o "$out/agm_zombie.glb" \
    --animation "$dayz/SQF/dayz_anim/zmb/zombie2_walk.rtm" \
    --animation "$dayz/Legacy/dayz_anim/zmb/zombie2_walk.rtm" \
    --animation "$dayz/SQF/dayz_anim/zmb/zombie_idle_4_loop.rtm" \
    --animation "$dayz/SQF/dayz_anim/zmb/zmbStandDeath2.rtm" \
    --clip-name walk --clip-name walk_plain --clip-name idle --clip-name death
else
  echo "skipped: corpus not found at $corpus; validating the samples only"
fi

node "$here/validate.mjs" "$out"/*.glb
