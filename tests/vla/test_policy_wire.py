"""The openpi wire format: msgpack with numpy arrays, byte-compatible with openpi_client.msgpack_numpy."""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bt_executive.skills import msgpack_numpy
from bt_executive.skills.policy import PolicyError, PolicyObservation, check_chunk

_DTYPES = st.sampled_from([np.uint8, np.int32, np.int64, np.float32, np.float64, np.bool_])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=_DTYPES)
def test_arrays_round_trip_exactly(data: st.DataObject, dtype: Any) -> None:
    array = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=4, max_side=6)))
    back = msgpack_numpy.unpackb(msgpack_numpy.packb({"a": array}))["a"]
    assert (back.dtype, back.shape, back.tobytes()) == (array.dtype, array.shape, array.tobytes())


def test_an_array_is_openpis_tagged_map_with_binary_keys() -> None:
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    raw = msgpack.unpackb(msgpack_numpy.packb(array))  # plain msgpack: no object hook
    assert raw == {b"__ndarray__": True, b"data": array.tobytes(), b"dtype": "<f4", b"shape": [2, 3]}


def test_numpy_scalars_keep_their_dtype() -> None:
    back = msgpack_numpy.unpackb(msgpack_numpy.packb({"x": np.float32(1.5), "n": np.int16(-3)}))
    assert (type(back["x"]), back["x"], type(back["n"]), back["n"]) == (np.float32, 1.5, np.int16, -3)


def test_object_arrays_are_refused_rather_than_pickled() -> None:
    with pytest.raises(ValueError, match="Unsupported dtype"):
        msgpack_numpy.packb(np.array([object()], dtype=object))


def test_an_observation_survives_the_wire() -> None:
    rng = np.random.default_rng(0)
    observation = PolicyObservation(
        images={"front": rng.integers(0, 255, (224, 224, 3), dtype=np.uint8), "wrist": np.zeros((8, 8, 3), np.uint8)},
        state=np.linspace(-1.0, 1.0, 7),
        prompt="put the blue cube in the bowl",
        privileged={"world_state": {"stamp": 1.5, "objects": []}},
    )
    wire = msgpack_numpy.unpackb(msgpack_numpy.packb(observation.to_wire()))
    back = PolicyObservation.from_wire(wire)
    assert sorted(wire) == [
        "observation/front_image",
        "observation/state",
        "observation/wrist_image",
        "privileged",
        "prompt",
    ]
    assert np.array_equal(back.images["front"], observation.images["front"])
    assert (back.state.tolist(), back.prompt, back.privileged) == (
        observation.state.tolist(),
        observation.prompt,
        observation.privileged,
    )


def test_a_malformed_observation_names_the_key() -> None:
    with pytest.raises(PolicyError, match="observation/state"):
        PolicyObservation.from_wire({"observation/front_image": np.zeros((4, 4, 3), np.uint8), "prompt": "x"})


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        (np.zeros((10, 6)), r"shape \(T, 7\)"),
        (np.zeros(7), r"shape \(T, 7\)"),
        (np.zeros((0, 7)), r"shape \(T, 7\)"),
        (np.full((2, 7), np.inf), "NaN or infinite"),
        ("actions", r"shape \(T, 7\)"),
    ],
)
def test_a_bad_action_chunk_says_what_is_wrong(chunk: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        check_chunk(chunk, 7)
