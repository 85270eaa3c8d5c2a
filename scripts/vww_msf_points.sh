#!/bin/sh
# MCUNet-VWW (TinyEngine's assets/vww.tflite, sha256 dfd1a2bec6f1...befcb) below msf-CNN's points:
# the three hand-found rewrite sequences of README.md "Multi-stage fusion and the peak / extra-MACs
# frontier", each re-planned, verified, simulated and compared bit for bit (--report).
#   scripts/vww_msf_points.sh PATH/TO/vww.tflite [build/native/arenaplan]
set -e
MODEL=${1:?usage: scripts/vww_msf_points.sh vww.tflite [arenaplan]}
AP=${2:-build/native/arenaplan}
FOLD="--apply foldpad:pad_1 --apply foldpad:pad_6 --apply foldpad:pad_18 --apply foldpad:pad_30"
STEM=msf:quantize_0,conv_2d_2,depthwise_conv_2d_3,conv_2d_4,conv_2d_5,depthwise_conv_2d_7,conv_2d_8
TAIL=""
for pair in 17,19 21,22 25,26 29,31 33,34 37,38 40,41 44,45 47,48 51,52 55,56; do
  TAIL="$TAIL --apply stream:conv_2d_${pair%,*},depthwise_conv_2d_${pair#*,}"
done
for k in 23 27 35 42 49 53 57; do TAIL="$TAIL --apply inplace:conv_2d_$k"; done
TAIL="$TAIL --apply inplace:add_24=input.33_te_transform_1 --apply inplace:add_28=fuse_transform_26"
TAIL="$TAIL --apply inplace:add_36=input.47_te_transform_1 --apply inplace:add_43=input.57_te_transform_1"
TAIL="$TAIL --apply inplace:add_50=input.67_te_transform_1 --apply inplace:add_54=fuse_transform_8"
# The 20x20 blocks streamed whole, projections and ADDs in place.
BLOCKS="--apply stream:conv_2d_9,depthwise_conv_2d_10 --apply stream:conv_2d_13,depthwise_conv_2d_14"
BLOCKS="$BLOCKS --apply inplace:conv_2d_11 --apply inplace:conv_2d_15"
BLOCKS="$BLOCKS --apply inplace:add_12=input.19_te_transform_1 --apply inplace:add_16=fuse_transform_11"
# The 20x20 blocks as msf stages of 5 row bands, the ADD inside each patch.
MSF_BLOCKS="--apply msf:conv_2d_9,depthwise_conv_2d_10,conv_2d_11,add_12=5 --apply msf:conv_2d_13,depthwise_conv_2d_14,conv_2d_15,add_16=5"
for point in "2x2 plain" "3x3 plain" "4x4 msf"; do
  grid=${point% *}
  if [ "${point#* }" = msf ]; then middle=$MSF_BLOCKS; else middle=$BLOCKS; fi
  echo "== first stage $grid, 20x20 blocks: ${point#* }"
  # shellcheck disable=SC2086
  "$AP" transform "$MODEL" --input-outside-arena $FOLD --apply "$STEM=$grid" $middle $TAIL --report --json |
    node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); const b = r.before, a = r.after;
      console.log(`peak ${a.peak_bytes} B (before ${b.peak_bytes} B), extra MACs ${a.macs - b.macs} ` +
        `(+${(100 * (a.macs - b.macs) / b.macs).toFixed(2)} %), verified ${a.verified}, simulated ${a.sim_ok}, outputs ${r.outputs.check}`)'
done
