"""Keep a long-running process's start-up objects out of the cyclic garbage collector's full passes.

A full (generation 2) collection walks every tracked object, and most of them are the
modules, schemas and message types loaded at start-up, which live as long as the process.
Measured in ``benchmarks/soak.py`` (``bt-executive serve``, ~70 k objects at start-up): a
full collection every 7-8 s took 27-50 ms with the GIL held, long enough to delay the 20 Hz
tick timer by a period each time; with them frozen, 4-11 ms. ``gc.freeze()`` after start-up
moves those objects to the permanent generation, which collections skip; what tasks
allocate afterwards is collected as before. Freezing once is safe: the objects are alive,
and a frozen object that later loses its last reference is still freed by reference
counting (only a frozen *cycle* would stay).
"""

from __future__ import annotations

import gc


def freeze_startup_objects() -> int:
    """Collect once, then move every surviving object to the permanent generation; how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
