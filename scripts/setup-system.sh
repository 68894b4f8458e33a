#!/usr/bin/env bash
# Debian packages the tests and the simulated camera need: Chromium for the browser tests,
# TrueType fonts for the table renderer, systemd-analyze for checking the unit file.
# Installs only what is missing; does nothing when everything is there.
# Usage: setup-system.sh run|test   (run: fonts for the simulated camera; test: everything)
set -euo pipefail

FONTS=(
  fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 fonts-noto-core
  fonts-open-sans fonts-lato fonts-roboto fonts-cantarell fonts-comic-neue fonts-cabin
  fonts-linuxlibertine fonts-crosextra-carlito fonts-crosextra-caladea fonts-league-spartan
  fonts-bebas-neue fonts-comfortaa fonts-dosis fonts-quicksand fonts-roboto-slab fonts-ebgaramond
  fonts-inter fonts-jura fonts-karla fonts-manrope fonts-oldstandard fonts-play fonts-sil-andika
  fonts-sil-gentium fonts-tuffy fonts-go fonts-hack fonts-opendin fonts-b612 fonts-humor-sans
  fonts-lobster fonts-averia-sans-gwf fonts-sora fonts-clear-sans fonts-adf-gillius
  fonts-adf-universalis fonts-courier-prime fonts-oflb-euterpe fonts-junction fonts-prociono
  fonts-isabella fonts-dkg-handwriting fonts-cherrybomb
)
case "${1:-test}" in
  run) PACKAGES=("${FONTS[@]}") ;;
  test) PACKAGES=(chromium systemd "${FONTS[@]}") ;;
  *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  echo "setup-system: cannot install ${missing[*]} (not root, no sudo); the tests that need them will say so." >&2
  exit 0
fi
echo "setup-system: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
