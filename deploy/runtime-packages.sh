#!/bin/sh
# Prints, one per line, the Debian packages that hold the shared libraries BINARY links directly
# (its ELF NEEDED entries), e.g. libcurl4, libyaml-cpp0.7. The image's runtime stage installs
# exactly these (apt brings what they depend on), so a library added to the build needs no edit
# here. Run where BINARY was built, on the Debian release the runtime image uses.
set -eu
binary=${1:?usage: runtime-packages.sh BINARY}
resolved=$(ldd "$binary")
packages=
for soname in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'); do
  path=$(printf '%s\n' "$resolved" | awk -v so="$soname" '$1 == so { print $3; exit }')
  if [ -z "$path" ] || [ "$path" = "not" ]; then
    echo "runtime-packages.sh: $soname (needed by $binary) not found" >&2
    exit 1
  fi
  # With a merged /usr, ldd may name /lib/... where dpkg recorded /usr/lib/... (or the reverse).
  owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null ||
          dpkg -S "/usr$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null) || {
    echo "runtime-packages.sh: no Debian package holds $path" >&2
    exit 1
  }
  packages="$packages $(printf '%s\n' "$owner" | head -n 1 | cut -d: -f1)"
done
printf '%s\n' $packages | sort -u
