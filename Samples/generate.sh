#!/usr/bin/env bash
# generate.sh -- builds the Mach-O sample fixtures (HoldApp + HoldKit, their dSYMs and crash reports).
#
# Everything under Samples/build and Samples/reports is made from Samples/src by this script, on
# Linux: the Swift toolchain's clang compiles for Apple targets, Debian's ld64.lld-14 links,
# dsymutil-14 (DWARF 4) or dsymutil-19 (DWARF 5) writes the dSYMs, llvm-lipo-14 makes the
# universal framework. Runs are idempotent and deterministic: objects are built in a scratch
# folder, debug paths are fixed with -fdebug-compilation-dir, object paths in the debug map are
# made relative with -oso_prefix and ZERO_AR_DATE zeroes their timestamps, so the same tools
# give the same bytes and the same LC_UUIDs. Usage: Samples/generate.sh  (or `make samples`).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
REPORTS="$HERE/reports"
DEBUG_DIR="/Users/build/HoldApp/src"   # the source folder as the DWARF records it

die() { echo "generate.sh: $*" >&2; exit 1; }

# need TOOL PACKAGE: fail with the Debian package that provides a missing tool.
need() {
    command -v "$1" >/dev/null 2>&1 || die "missing tool '$1' (Debian package: $2; try 'apt-get install $2')"
}

CLANG="${CLANG:-}"
if [[ -z "$CLANG" ]]; then
    if [[ -x /opt/swift/usr/bin/clang ]]; then CLANG=/opt/swift/usr/bin/clang; else CLANG=clang; fi
fi
need "$CLANG" "the Swift toolchain (its clang compiles Apple targets)"
need ld64.lld-14 lld-14
need dsymutil-14 llvm-14
need dsymutil-19 llvm-19
need llvm-lipo-14 llvm-14
need llvm-objdump-14 llvm-14
need llvm-dwarfdump-14 llvm-14
need llvm-dwarfdump-19 llvm-19
need llvm-symbolizer-14 llvm-14
need python3 python3
"$CLANG" -target arm64-apple-ios15.0 -x c -c /dev/null -o /dev/null 2>/dev/null \
    || die "$CLANG cannot compile for arm64-apple-ios15.0; set CLANG to the Swift toolchain's clang"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/holdapp-samples.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# dsymutil runs `lipo` for universal binaries; give it llvm-lipo-14 under that name.
mkdir -p "$WORK/bin"
ln -s "$(command -v llvm-lipo-14)" "$WORK/bin/lipo"
export PATH="$WORK/bin:$PATH"
export ZERO_AR_DATE=1
export PYTHONDONTWRITEBYTECODE=1

HOLDKIT_SOURCES=(HoldKit/HKStore.c HoldKit/HKCodec.cpp HoldKit/HKRecord.m)
HOLDAPP_SOURCES=(HoldApp/ViewController.c HoldApp/Model.cpp HoldApp/AppDelegate.m)

# compile OBJDIR TRIPLE DWARF VARIANT SOURCES... -- one object per source, named after it.
compile() {
    local objdir="$1" triple="$2" dwarf="$3" variant="$4"
    shift 4
    mkdir -p "$objdir"
    local src obj lang
    for src in "$@"; do
        obj="$objdir/$(basename "${src%.*}").o"
        case "$src" in
            *.cpp) lang=(-x c++ -std=c++17 -fno-exceptions -fno-rtti) ;;
            *.m) lang=(-x objective-c -fobjc-runtime=ios-15.0 -fno-objc-arc -fno-objc-exceptions) ;;
            *) lang=(-x c -std=c11) ;;
        esac
        (cd "$SRC" && "$CLANG" -target "$triple" "${lang[@]}" -O2 -g "-gdwarf-$dwarf" \
            -ffreestanding -fno-stack-protector -fno-common -Wall -Werror \
            -fdebug-compilation-dir="$DEBUG_DIR" -IHoldKit/include -IHoldApp \
            "-DHOLD_VARIANT=\"$variant\"" -c "$src" -o "$obj")
    done
}

# link_kit OBJDIR PREFIX LDARCH PLATFORM OUTPUT
link_kit() {
    local objdir="$1" prefix="$2" ldarch="$3" platform="$4" output="$5"
    mkdir -p "$(dirname "$output")"
    ld64.lld-14 -arch "$ldarch" -platform_version "$platform" 15.0 15.0 -dylib \
        -install_name @rpath/HoldKit.framework/HoldKit -current_version 1.2 -compatibility_version 1.0 \
        -undefined dynamic_lookup -oso_prefix "$prefix" \
        "$objdir/HKStore.o" "$objdir/HKCodec.o" "$objdir/HKRecord.o" -o "$output" 2>"$objdir/ld-kit.log" \
        || { cat "$objdir/ld-kit.log" >&2; die "linking HoldKit ($ldarch) failed"; }
}

# link_app OBJDIR PREFIX LDARCH PLATFORM KIT OUTPUT
link_app() {
    local objdir="$1" prefix="$2" ldarch="$3" platform="$4" kit="$5" output="$6"
    mkdir -p "$(dirname "$output")"
    ld64.lld-14 -arch "$ldarch" -platform_version "$platform" 15.0 15.0 -execute -e _main \
        -undefined dynamic_lookup -rpath @executable_path/Frameworks -oso_prefix "$prefix" \
        "$objdir/ViewController.o" "$objdir/Model.o" "$objdir/AppDelegate.o" "$kit" -o "$output" \
        2>"$objdir/ld-app.log" \
        || { cat "$objdir/ld-app.log" >&2; die "linking HoldApp ($ldarch) failed"; }
}

# plist FILE IDENTIFIER EXECUTABLE PACKAGETYPE
plist() {
    cat >"$1" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleExecutable</key>
	<string>$3</string>
	<key>CFBundleIdentifier</key>
	<string>$2</string>
	<key>CFBundleName</key>
	<string>$3</string>
	<key>CFBundlePackageType</key>
	<string>$4</string>
	<key>CFBundleShortVersionString</key>
	<string>1.2</string>
	<key>CFBundleVersion</key>
	<string>12</string>
	<key>MinimumOSVersion</key>
	<string>15.0</string>
</dict>
</plist>
PLIST
}

# dsym DSYMUTIL OSODIR BINARY DSYM -- write a dSYM bundle next to the product.
dsym() {
    local tool="$1" osodir="$2" binary="$3" bundle="$4"
    rm -rf "$bundle"
    "$tool" --oso-prepend-path "$osodir" "$binary" -o "$bundle" 2>"$WORK/dsymutil.log" \
        || { cat "$WORK/dsymutil.log" >&2; die "$tool failed on $binary"; }
    if grep -q -i "warning" "$WORK/dsymutil.log"; then
        cat "$WORK/dsymutil.log" >&2
        die "$tool warned on $binary (missing objects?)"
    fi
}

# build_variant NAME DWARF DSYMUTIL KIT_SLICES APP_SLICE
# A slice is TRIPLE:LDARCH:PLATFORM. With two kit slices the framework is universal.
build_variant() {
    local name="$1" dwarf="$2" dsymutil="$3" kit_slices="$4" app_slice="$5"
    local dest="$OUT/$name" objroot="$WORK/$name"
    local app="$dest/HoldApp.app" kitdir="$dest/HoldApp.app/Frameworks/HoldKit.framework"
    echo "== $name"
    rm -rf "$dest"
    mkdir -p "$app" "$kitdir" "$objroot"

    local slice triple ldarch platform kits=()
    for slice in $kit_slices; do
        IFS=: read -r triple ldarch platform <<<"$slice"
        compile "$objroot/kit-$ldarch" "$triple" "$dwarf" "$name" "${HOLDKIT_SOURCES[@]}"
        link_kit "$objroot/kit-$ldarch" "$objroot/" "$ldarch" "$platform" "$objroot/HoldKit-$ldarch"
        kits+=("$objroot/HoldKit-$ldarch")
    done
    if [[ ${#kits[@]} -eq 1 ]]; then
        cp "${kits[0]}" "$kitdir/HoldKit"
    else
        llvm-lipo-14 -create "${kits[@]}" -output "$kitdir/HoldKit"
    fi

    IFS=: read -r triple ldarch platform <<<"$app_slice"
    compile "$objroot/app-$ldarch" "$triple" "$dwarf" "$name" "${HOLDAPP_SOURCES[@]}"
    link_app "$objroot/app-$ldarch" "$objroot/" "$ldarch" "$platform" "$objroot/HoldKit-$ldarch" "$app/HoldApp"

    plist "$app/Info.plist" com.example.HoldApp HoldApp APPL
    plist "$kitdir/Info.plist" com.example.HoldKit HoldKit FMWK
    dsym "$dsymutil" "$objroot" "$app/HoldApp" "$dest/HoldApp.app.dSYM"
    dsym "$dsymutil" "$objroot" "$kitdir/HoldKit" "$dest/HoldKit.framework.dSYM"
}

ARM64_DEVICE="arm64-apple-ios15.0:arm64:ios"
X86_64_SIM="x86_64-apple-ios15.0-simulator:x86_64:ios-simulator"

rm -rf "$OUT"
mkdir -p "$OUT"
build_variant ios-arm64-dwarf4 4 dsymutil-14 "$ARM64_DEVICE" "$ARM64_DEVICE"
build_variant ios-arm64-dwarf5 5 dsymutil-19 "$ARM64_DEVICE" "$ARM64_DEVICE"
build_variant sim-x86_64-dwarf4 4 dsymutil-14 "$X86_64_SIM" "$X86_64_SIM"
build_variant universal-dwarf5 5 dsymutil-19 "$ARM64_DEVICE $X86_64_SIM" "$ARM64_DEVICE"

# verify DWARFDUMP DSYM... -- every dSYM must pass llvm-dwarfdump --verify.
verify() {
    local dwarfdump="$1" file
    shift
    for file in "$@"; do
        "$dwarfdump" --verify "$file" >"$WORK/verify.log" 2>&1 \
            || { cat "$WORK/verify.log" >&2; die "$dwarfdump --verify found errors in $file"; }
    done
}
verify llvm-dwarfdump-14 "$OUT"/*-dwarf4/*.dSYM/Contents/Resources/DWARF/*
verify llvm-dwarfdump-19 "$OUT"/*-dwarf5/*.dSYM/Contents/Resources/DWARF/*

python3 "$HERE/make_reports.py" --build "$OUT" --reports "$REPORTS"
python3 "$HERE/make_diagnostics.py" --reports "$REPORTS" --out "$HERE/diagnostics"
echo "generate.sh: samples written to $OUT and $REPORTS"
