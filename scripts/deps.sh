#!/usr/bin/env bash
# scripts/deps.sh: install flexmb's Debian packages (only the missing ones) and
# configure + build the project with CMake. Shared by scripts/demo.sh and
# scripts/test.sh, which source it; it can also be run on its own:
#
#   scripts/deps.sh            # install what is missing, then build
#   scripts/deps.sh --deps     # only install the packages
#
# Environment:
#   FMB_BUILD_DIR   build directory (default build/, or build-asan/ with FMB_SANITIZE=1);
#                   a relative path is taken from the repository root
#   FMB_SANITIZE=1  configure with -DFMB_SANITIZE=ON (AddressSanitizer + UBSan)
#   FMB_BUILD_TYPE  CMAKE_BUILD_TYPE (default RelWithDebInfo)
#   FMB_JOBS        parallel build jobs (default 2)
#   FMB_CMAKE_ARGS  extra arguments for the CMake configure step (word-split)
#   FMB_SKIP_DEPS=1 do not check or install Debian packages
#
# After fmb_build, FMB_BUILD holds the absolute build directory.

# Debian 12 packages needed to build, test and post-process. OpenMPI is optional for the
# build (without it `flexmb sweep` runs locally only); it is listed so that the tests cover
# `mpirun -n N flexmb sweep`.
FMB_PACKAGES=(
    build-essential cmake pkg-config
    libsuitesparse-dev libmetis-dev libhdf5-dev libyaml-dev libssl-dev
    libsiconos-numerics-dev liblapack-dev libblas-dev
    python3-h5py python3-numpy python3-matplotlib python3-paraview hdf5-tools
    xvfb xauth
    clang libclang-rt-14-dev
    libopenmpi-dev openmpi-bin
)

FMB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fmb_log() { printf '==> %s\n' "$*" >&2; }
fmb_die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Print the packages of FMB_PACKAGES that are not installed, one per line.
fmb_missing_packages() {
    local pkg status
    for pkg in "${FMB_PACKAGES[@]}"; do
        status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
        if [[ "$status" != installed ]]; then
            printf '%s\n' "$pkg"
        fi
    done
}

# Install the missing packages with apt-get (through sudo when not root).
# Quick and silent when everything is present.
fmb_install_deps() {
    if [[ "${FMB_SKIP_DEPS:-0}" == 1 ]]; then
        return 0
    fi
    command -v dpkg-query >/dev/null 2>&1 ||
        fmb_die "dpkg-query not found: this script expects Debian 12; install by hand: ${FMB_PACKAGES[*]}"

    local missing=()
    mapfile -t missing < <(fmb_missing_packages)
    if ((${#missing[@]} == 0)); then
        return 0
    fi

    local sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null 2>&1 ||
            fmb_die "not root and sudo not found; as root run: apt-get install ${missing[*]}"
        sudo=(sudo)
    fi
    local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get
        -y -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=600)

    fmb_log "installing missing packages: ${missing[*]}"
    "${apt[@]}" update
    "${apt[@]}" install --no-install-recommends "${missing[@]}"

    mapfile -t missing < <(fmb_missing_packages)
    if ((${#missing[@]} != 0)); then
        fmb_die "still missing after apt-get install: ${missing[*]}"
    fi
}

# Resolve the build directory into FMB_BUILD (absolute path).
fmb_build_dir() {
    local dir="${FMB_BUILD_DIR:-}"
    if [[ -z "$dir" ]]; then
        if [[ "${FMB_SANITIZE:-0}" == 1 ]]; then
            dir=build-asan
        else
            dir=build
        fi
    fi
    if [[ "$dir" != /* ]]; then
        dir="$FMB_ROOT/$dir"
    fi
    FMB_BUILD="$dir"
}

# Configure (every time: cheap, and picks up new source files) and build.
fmb_build() {
    fmb_build_dir
    local args=(-S "$FMB_ROOT" -B "$FMB_BUILD"
        "-DCMAKE_BUILD_TYPE=${FMB_BUILD_TYPE:-RelWithDebInfo}")
    if [[ "${FMB_SANITIZE:-0}" == 1 ]]; then
        args+=(-DFMB_SANITIZE=ON)
    fi
    if [[ -n "${FMB_CMAKE_ARGS:-}" ]]; then
        local extra=()
        read -r -a extra <<<"$FMB_CMAKE_ARGS"
        args+=("${extra[@]}")
    fi
    fmb_log "configuring in ${FMB_BUILD}"
    cmake "${args[@]}" || fmb_die "CMake configure failed in ${FMB_BUILD}"
    fmb_log "building (-j${FMB_JOBS:-2})"
    cmake --build "$FMB_BUILD" --parallel "${FMB_JOBS:-2}" || fmb_die "build failed in ${FMB_BUILD}"
}

# Run directly: do the work. Sourced: only define the functions.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    fmb_install_deps
    if [[ "${1:-}" != --deps ]]; then
        fmb_build
        fmb_log "built ${FMB_BUILD}/flexmb"
    fi
fi
