#!/bin/sh
# Install the Sonetto launcher for the current user: the .desktop file and the app icon go into
# ~/.local/share (XDG_DATA_HOME), pointing at a built bundle. Nothing outside your home is touched.
#
#   ./install.sh [BUNDLE_DIR]        install (BUNDLE_DIR: the folder holding the `sonetto` executable;
#                                    default: this script's folder if it holds one, else dist/sonetto)
#   ./install.sh --uninstall         remove what install added
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
apps_dir=$data_home/applications
icons_dir=$data_home/icons/hicolor
desktop_file=$apps_dir/sonetto.desktop

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$desktop_file" "$icons_dir/scalable/apps/sonetto.svg"
    for size in 48 128 256 512; do rm -f "$icons_dir/${size}x${size}/apps/sonetto.png"; done
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps_dir" || true
    echo "Sonetto launcher removed."
    exit 0
fi

if [ $# -ge 1 ]; then
    bundle=$(cd "$1" && pwd)
elif [ -x "$here/sonetto" ]; then
    bundle=$here
else
    bundle=$(cd "$here/../.." && pwd)/dist/sonetto
fi
if [ ! -x "$bundle/sonetto" ]; then
    echo "install.sh: no executable 'sonetto' in $bundle (build it with: python packaging/build.py)" >&2
    exit 1
fi

# The .desktop template: next to this script in a bundle, or packaging/linux/ in a checkout.
template=$here/sonetto.desktop
[ -f "$template" ] || template=$bundle/sonetto.desktop
if [ ! -f "$template" ]; then
    echo "install.sh: sonetto.desktop not found next to $0 or in $bundle" >&2
    exit 1
fi

# Icons: the bundle's icons/ folder (written by build.py), else the SVG master inside the bundle.
icon_src=$bundle/icons
svg=$icon_src/sonetto.svg
[ -f "$svg" ] || svg=$bundle/_internal/sonetto_desktop/resources/icons/app.svg
if [ ! -f "$svg" ]; then
    echo "install.sh: no app icon found in $bundle" >&2
    exit 1
fi
mkdir -p "$apps_dir" "$icons_dir/scalable/apps"
cp "$svg" "$icons_dir/scalable/apps/sonetto.svg"
for size in 48 128 256 512; do
    if [ -f "$icon_src/sonetto-$size.png" ]; then
        mkdir -p "$icons_dir/${size}x${size}/apps"
        cp "$icon_src/sonetto-$size.png" "$icons_dir/${size}x${size}/apps/sonetto.png"
    fi
done

# Exec/TryExec need the absolute path of this bundle, quoted for the spaces it may contain. The few
# characters the Desktop Entry spec makes us escape inside quotes are refused instead.
exe=$bundle/sonetto
case $exe in
    *[\"\`\$\\%]*)
        echo "install.sh: the bundle path contains one of \" \` \$ \\ %; move it to a plainer path: $exe" >&2
        exit 1 ;;
esac
escaped=$(printf '%s' "$exe" | sed -e 's/[&|]/\\&/g')
sed -e "s|^Exec=.*|Exec=\"$escaped\"|" -e "s|^TryExec=.*|TryExec=$escaped|" "$template" > "$desktop_file.tmp"
mv "$desktop_file.tmp" "$desktop_file"
chmod 644 "$desktop_file"

# No gtk-update-icon-cache here: a cache in the user's icon dir would hide icons other apps add later.
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps_dir" || true
echo "Sonetto installed: $desktop_file -> $exe"
