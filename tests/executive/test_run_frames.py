"""A run's frames on disk: JPEGs at most 320 px wide, a byte bound, and which frames the bound drops first."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bt_executive.executive.run_frames import (
    FRAME_EVENT,
    FrameBudget,
    FrameStore,
    encode_jpeg,
    run_frames,
)
from bt_executive.trees.task_context import TaskEvent


def noise(height: int, width: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def test_a_wide_frame_is_scaled_down_to_320_px_keeping_its_aspect() -> None:
    data, width, height = encode_jpeg(noise(480, 640))
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.size, (width, height)) == ("JPEG", (320, 240), (320, 240))


def test_a_narrow_frame_is_never_enlarged() -> None:
    _, width, height = encode_jpeg(noise(224, 224))
    assert (width, height) == (224, 224)


def test_a_frame_that_is_not_rgb_uint8_is_refused_naming_its_shape() -> None:
    with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
        encode_jpeg(np.zeros((4, 4), np.uint8))


def test_the_budget_drops_the_oldest_middle_frame_first() -> None:
    budget = FrameBudget(max_bytes=300)
    dropped = [budget.add(f"f{i}", "front", 100) for i in range(5)]
    assert (dropped, budget.kept) == ([[], [], [], ["f1"], ["f2"]], ["f0", "f3", "f4"])


def test_the_budget_keeps_each_cameras_first_and_newest_frame() -> None:
    budget = FrameBudget(max_bytes=400)
    for i in range(4):
        budget.add(f"front{i}", "front", 50)
        budget.add(f"wrist{i}", "wrist", 50)
    budget.add("front4", "front", 200)
    assert (set(budget.kept) >= {"front0", "wrist0", "front4", "wrist3"}, budget.total <= 400) == (True, True)


def test_the_budget_never_drops_a_first_or_newest_frame_even_past_its_bound() -> None:
    budget = FrameBudget(max_bytes=100)
    budget.add("first", "front", 80)
    assert (budget.add("last", "front", 80), budget.kept) == ([], ["first", "last"])


def test_a_budget_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        FrameBudget(max_bytes=0)


def test_a_store_keeps_its_run_within_the_bound_on_disk(tmp_path: Path) -> None:
    store = FrameStore(tmp_path, max_bytes=120_000)
    for seed in range(20):
        store.save("front", noise(224, 224, seed), moments=["step_end"], run_t=float(seed))
    on_disk = sorted(p.name for p in (tmp_path / "frames").iterdir())
    total = sum(p.stat().st_size for p in (tmp_path / "frames").iterdir())
    ends = (on_disk[0], on_disk[-1])
    assert (total <= 120_000, ends, len(on_disk) < 20) == (True, ("0000-front.jpg", "0019-front.jpg"), True)


def test_the_reader_lists_kept_frames_and_counts_dropped_ones(tmp_path: Path) -> None:
    store = FrameStore(tmp_path, max_bytes=60_000)
    events = []
    for seed in range(6):
        record = store.save("front", noise(224, 224, seed), moments=["step_start"], run_t=seed * 0.5)
        events.append(TaskEvent(kind=FRAME_EVENT, t=seed * 0.5, step=seed, data=record.model_dump(mode="json")))
    frames = run_frames(tmp_path, [TaskEvent(kind="task", t=0.0), *events])
    kept = [f.record.file for f in frames.frames]
    assert (len(kept) + frames.dropped, kept[0], kept[-1]) == (6, "frames/0000-front.jpg", "frames/0005-front.jpg")


def test_a_frame_event_naming_a_file_outside_frames_is_an_error_naming_the_field(tmp_path: Path) -> None:
    data = {"camera": "front", "file": "../../etc/passwd", "moments": ["task"], "run_t": 0.0}
    data |= {"width": 1, "height": 1, "bytes": 1}
    with pytest.raises(ValueError, match=r"frame event 0: data\.file"):
        run_frames(tmp_path, [TaskEvent(kind=FRAME_EVENT, t=0.0, data=data)])


def test_a_frame_event_without_a_camera_is_an_error_naming_the_field(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"data\.camera"):
        run_frames(tmp_path, [TaskEvent(kind=FRAME_EVENT, t=0.0, data={"file": "frames/0000-front.jpg"})])
