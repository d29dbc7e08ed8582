#!/bin/sh
# Regenerates the app icons in build/ from nothing but ImageMagick (6.9, /usr/bin/convert) and
# png2icns (icnsutils): a stack of three film frames fanned like a flipbook's pages, the front
# one carrying a play mark. Run from the repo root: sh build/make-icons.sh
# The outputs are committed (electron-builder reads them from build/ at packaging time), so
# packaging needs neither tool.
set -eu
IM=${IM:-/usr/bin/convert}
out=build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1024×1024 master, drawn at 1024 so every smaller size is a plain downscale.
"$IM" -size 1024x1024 xc:none \
  -fill '#1f2a44' -draw 'roundrectangle 64,64 960,960 180,180' \
  -fill '#34476f' -stroke '#0f1626' -strokewidth 10 -draw 'roundrectangle 300,170 820,560 36,36' \
  -fill '#4d6aa3' -draw 'roundrectangle 250,270 770,660 36,36' \
  -fill '#f2f4f8' -draw 'roundrectangle 200,370 720,760 36,36' \
  -stroke none -fill '#1f2a44' \
  -draw 'rectangle 232,400 262,430' -draw 'rectangle 232,700 262,730' \
  -draw 'rectangle 658,400 688,430' -draw 'rectangle 658,700 688,730' \
  -fill '#e8663d' -draw 'polygon 400,470 400,660 560,565' \
  -fill '#f2b134' -draw 'roundrectangle 200,820 720,860 20,20' \
  -fill '#e8663d' -draw 'roundrectangle 200,820 470,860 20,20' \
  -strip "PNG32:$tmp/1024.png"

mkdir -p "$out/icons"
for s in 16 32 48 64 128 256 512 1024; do
  "$IM" "$tmp/1024.png" -filter Lanczos -resize "${s}x${s}" -strip "PNG32:$out/icons/${s}x${s}.png"
done
cp "$tmp/1024.png" "$out/icon.png"
# Windows: one .ico with the sizes Explorer and the taskbar ask for (256 is PNG-compressed inside).
"$IM" "$out/icons/16x16.png" "$out/icons/32x32.png" "$out/icons/48x48.png" "$out/icons/64x64.png" \
  "$out/icons/128x128.png" "$out/icons/256x256.png" "$out/icon.ico"
# macOS: .icns with the classic and retina sizes png2icns knows.
png2icns "$out/icon.icns" "$out/icons/16x16.png" "$out/icons/32x32.png" "$out/icons/48x48.png" \
  "$out/icons/128x128.png" "$out/icons/256x256.png" "$out/icons/512x512.png" "$out/icons/1024x1024.png" >/dev/null
