# The two commands a newcomer needs: `make demo` and `make test`.
# Each creates .venv if absent and installs everything (pinned) before it runs.

SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
BOOTSTRAP_PY ?= python3

# Every ROS process this project starts stays on this machine.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export LITELLM_LOCAL_MODEL_COST_MAP := True
export MUJOCO_GL ?= egl
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# The interfaces are built by `make venv`: their tests fail rather than skip when missing.
export BT_EXECUTIVE_REQUIRE_INTERFACES := 1

# Debian packages: EGL/Mesa (headless MuJoCo rendering, osmesa fallback), graphviz
# (dot export), cmake and g++ (our interfaces package), chromium (a real browser for the viewer tests).
DEB_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri libopengl0 libosmesa6 graphviz cmake g++ chromium

.PHONY: help venv interfaces system-deps demo test lint typecheck unit schema clean colcon-check test-under-load

help:
	@echo "make demo   - run the demo (installs into $(VENV) first)"
	@echo "make test   - lint, type-check and run the tests (installs into $(VENV) first)"
	@echo "make test-under-load - the tests beside $(HOGS) CPU-bound processes, a busy robot computer (not in CI)"
	@echo "make colcon-check - build the three packages in a colcon workspace and check its install space"

venv: $(VENV)/.installed interfaces

# Our ROS interfaces, generated with the pip-installed rosidl toolchain; cached by the script.
# py_trees_ros_interfaces (snapshot streams) is built only where no ROS install provides it.
interfaces: $(VENV)/.installed
	@bash bt_executive_interfaces/build_into_venv.sh $(VENV)
	@bash py_trees_ros_interfaces/build_into_venv.sh $(VENV)

system-deps: $(VENV)/.system-deps

$(VENV)/.system-deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	    || { echo "error: could not install Debian packages: $$missing" >&2; exit 1; }; \
	fi
	@mkdir -p $(VENV) && touch $@

$(VENV)/bin/python:
	$(BOOTSTRAP_PY) -m venv $(VENV)

$(VENV)/.installed: $(VENV)/bin/python $(VENV)/.system-deps requirements.txt requirements-nodeps.txt setup.py
	$(PIP) install -q -r requirements.txt 2>&1 | { grep -v "^WARNING: Location" || true; }; exit $${PIPESTATUS[0]}
	$(PIP) install -q --no-deps -r requirements-nodeps.txt 2>&1 | { grep -v "^WARNING: Location" || true; }; exit $${PIPESTATUS[0]}
	$(PIP) install -q --no-deps --no-build-isolation -e . 2>&1 | { grep -v "^WARNING: Location" || true; }; exit $${PIPESTATUS[0]}
	@touch $@

demo: venv
	$(VENV)/bin/bt-executive demo $(DEMO_ARGS)

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: venv
	$(PY) -m mypy

# Two workers: most tests wait on a ROS graph, a sim or a model server rather than a core, so two run in about
# 60% of one's time on 2 cores. Each worker holds a ROS domain of its own (bt_executive/testing/ros_domain.py).
# One process (a debugger, -s), or a part: make unit PYTEST_ARGS=tests/llm
PYTEST_ARGS ?= -n 2

unit: venv
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

test: lint typecheck unit

# The tests beside CPU-bound processes (bt_executive/testing/cpu_load.py), as on a robot computer that
# perception and planning share: what waits on time must wait for its event, not for a window.
HOGS ?= 2
test-under-load: venv
	$(PY) -m bt_executive.testing.cpu_load --hogs $(HOGS) -- $(MAKE) --no-print-directory unit

# A ROS 2 workspace build with colcon from PyPI (requirements-colcon.txt, --no-deps: see there), and
# checks of its install space as `ros2 run` / `ros2 launch` use it (.ci/colcon-check).
colcon-check: venv
	$(PIP) install -q --no-deps -r requirements-colcon.txt 2>&1 | { grep -v "^WARNING: Location" || true; }; exit $${PIPESTATUS[0]}
	bash .ci/colcon-check $(VENV)

schema: venv
	$(VENV)/bin/bt-executive skills schema --write

clean:
	rm -rf build install log .mypy_cache .ruff_cache .hypothesis
