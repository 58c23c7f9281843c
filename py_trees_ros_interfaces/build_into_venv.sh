#!/usr/bin/env bash
# Build our copy of py_trees_ros_interfaces (the snapshot-stream messages and
# services) with the pip-installed ROS 2 Kilted tools and Debian cmake/g++ (no
# colcon), and install it into a venv -- only where the package does not import
# already: on a machine with ROS 2 and py_trees_ros installed (sourced), that
# installation's package wins and nothing is built.
#
#   bash py_trees_ros_interfaces/build_into_venv.sh VENV_DIR
#
# Cached: skipped when $VENV/.bt_executive_interfaces.stamp holds the hash of this
# package's files (this script included) and of the venv's ROS/numpy wheel versions,
# and the generated types import with their C type support.
# Installed into the venv prefix ($VENV/lib for the C libraries, site-packages for
# the Python package), where ros-wheels-bootstrapper's LD_LIBRARY_PATH already
# looks, so a plain `$VENV/bin/python` imports it with no ROS environment set.
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 VENV_DIR" >&2
  exit 2
fi

PKG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$PKG_DIR")
PKG=py_trees_ros_interfaces
VENV=$(cd "$1" && pwd)
PY="$VENV/bin/python"
STAMP="$VENV/.$PKG.stamp"
BUILD_DIR="$ROOT/build/$PKG"
LOG="$BUILD_DIR/build.log"

if [ ! -x "$PY" ]; then
  echo "error: $PY not found; create the venv and pip install -r requirements.txt first" >&2
  exit 1
fi

# Provided by a ROS 2 installation (sourced in this shell) and not by an earlier run of
# this script: use that one, build nothing.
# (From /, so that this source folder is not mistaken for the package.)
PROBE='import os, py_trees_ros_interfaces as p
from py_trees_ros_interfaces.msg import BehaviourTree
from py_trees_ros_interfaces.srv import OpenSnapshotStream
print(os.path.dirname(p.__file__))'
if [ ! -f "$STAMP" ] && WHERE=$(cd / && "$PY" -c "$PROBE" 2>/dev/null); then
  echo "$PKG: provided by $WHERE (not built)"
  exit 0
fi

# A clean environment for every command below: no ROS workspace that may be sourced
# in this shell, and no bootstrap marker inherited from another venv's Python (the
# marker would make this venv's Python skip setting its own library path).
unset PYTHONPATH COLCON_PREFIX_PATH ROS_DISTRO ROS_VERSION _ROS_WHEELS_BOOTSTRAP_COMPLETE
export AMENT_PREFIX_PATH="$VENV"
export CMAKE_PREFIX_PATH="$VENV"

# Importing the generated modules is pure Python; check_for_type_support also loads
# the C type support libraries, which is what needs the install location to be right.
VERIFY='from py_trees_ros_interfaces.msg import BehaviourTree, SnapshotStreamParameters
from py_trees_ros_interfaces.srv import CloseSnapshotStream, OpenSnapshotStream, ReconfigureSnapshotStream
from rclpy.type_support import check_for_type_support
for t in (BehaviourTree, SnapshotStreamParameters, OpenSnapshotStream, CloseSnapshotStream, ReconfigureSnapshotStream):
    check_for_type_support(t)'

# Imports with no ROS variables at all (what a user's `$VENV/bin/python` sees).
imports_ok() {
  env -u AMENT_PREFIX_PATH -u CMAKE_PREFIX_PATH -u LD_LIBRARY_PATH "$PY" -c "$VERIFY" >/dev/null 2>&1
}

# Cache key: the package's sources (paths and contents, this script included; build
# outputs never live in this folder) and the versions of the venv's ROS and numpy
# wheels we compile against (their dist-info folder names).
HASH=$(
  {
    cd "$PKG_DIR" && find . -type f ! -name '*.pyc' ! -name '*~' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    find "$VENV"/lib/python3*/site-packages -maxdepth 1 \( -name 'ros_*.dist-info' -o -name 'numpy-*.dist-info' \) \
      -printf '%f\n' | LC_ALL=C sort
  } | sha256sum | cut -d' ' -f1
)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ] && imports_ok; then
  echo "$PKG: up to date in $VENV (skipped build)"
  exit 0
fi

for tool in cmake make g++; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (Debian: apt-get install cmake g++)" >&2; exit 1; }
done

START=$SECONDS
# A build tree configured for another venv caches that venv's package paths: start over.
if [ -f "$BUILD_DIR/CMakeCache.txt" ] \
  && ! grep -qxF "CMAKE_INSTALL_PREFIX:PATH=$VENV" "$BUILD_DIR/CMakeCache.txt"; then
  echo "$PKG: build tree was configured for another prefix; removing $BUILD_DIR"
  rm -rf "${BUILD_DIR:?}"
fi
mkdir -p "$BUILD_DIR"
: >"$LOG"
rm -f "$STAMP"

run_logged() {  # run a step, output to the log; on failure show the log's tail
  local what=$1
  shift
  echo "$PKG: $what"
  if ! "$@" >>"$LOG" 2>&1; then
    echo "error: $PKG: $what failed; last lines of $LOG:" >&2
    tail -n 60 "$LOG" >&2
    exit 1
  fi
}

# The wheels' generated CMake exports carry the build container's Python and numpy
# include dirs (/opt/python/cp311-cp311/...): point them at this venv's. Idempotent,
# and files already right are not rewritten.
run_logged "fixing include paths in the wheels' CMake exports" "$PY" - "$VENV" <<'EOF'
import pathlib
import re
import sys
import sysconfig

import numpy

venv = pathlib.Path(sys.argv[1])
py_inc = sysconfig.get_paths()["include"]
np_inc = numpy.get_include()
# An absolute include dir of Python 3.x, or a numpy include dir, in a ;-list or quoted string.
py_re = re.compile(r'(?<=[";])/[^";]*/include/python3\.\d+(?=[";])')
np_re = re.compile(r'(?<=[";])/[^";]*/site-packages/numpy/(?:_core|core)/include(?=[";])')
changed = 0
for path in sorted(venv.glob("share/*/cmake/*Export*.cmake")):
    text = path.read_text()
    new = np_re.sub(lambda _m: np_inc, py_re.sub(lambda _m: py_inc, text))
    if new != text:
        path.write_text(new)
        changed += 1
        print(f"rewrote {path}")
print(f"{changed} export file(s) rewritten; python include {py_inc}, numpy include {np_inc}")
EOF

run_logged "configuring (cmake)" cmake -S "$PKG_DIR" -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$VENV" \
  -DCMAKE_INSTALL_PREFIX="$VENV" \
  -DPython3_EXECUTABLE="$PY" \
  -DBUILD_TESTING=OFF
run_logged "building (-j2)" cmake --build "$BUILD_DIR" -j2
run_logged "installing into $VENV" cmake --install "$BUILD_DIR"

if ! imports_ok; then
  echo "error: $PKG was installed into $VENV but does not import; the import error:" >&2
  env -u AMENT_PREFIX_PATH -u CMAKE_PREFIX_PATH -u LD_LIBRARY_PATH "$PY" -c "$VERIFY" >&2 || true
  exit 1
fi
echo "$HASH" >"$STAMP"
echo "$PKG: built and installed into $VENV in $((SECONDS - START)) s (log: $LOG)"
