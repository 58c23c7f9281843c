"""The policy server and client speak openpi's protocol: metadata first, chunk per observation, tracebacks, /healthz."""

from __future__ import annotations

import http.client
from collections.abc import Iterator

import numpy as np
import pytest
from websockets.sync.client import connect

from bt_executive.cli.main import main
from bt_executive.sim.oracle_policy import OraclePolicy
from bt_executive.skills import msgpack_numpy
from bt_executive.skills.policy import PolicyError, PolicyNotFound, PolicyObservation, load_policy
from bt_executive.skills.policy_client import PolicyClient
from bt_executive.skills.policy_server import PolicyServer
from tests.vla.conftest import PolicyServerProcess
from tests.vla.scripted import ScriptedPolicy, Step, chunk


@pytest.fixture
def scripted_server() -> Iterator[tuple[ScriptedPolicy, PolicyServer]]:
    """A scripted policy served on a background thread: one good chunk, then an exception."""
    policy = ScriptedPolicy([Step(chunk(0.25, length=4)), Step(error=ValueError("weights not loaded"))])
    with PolicyServer(policy) as server:
        yield policy, server


def observation() -> PolicyObservation:
    return PolicyObservation(
        images={"front": np.zeros((224, 224, 3), np.uint8)}, state=np.zeros(7), prompt="put the red cube on the plate"
    )


def test_healthz_answers_200_without_a_websocket(scripted_server: tuple[ScriptedPolicy, PolicyServer]) -> None:
    _, server = scripted_server
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", "/healthz")
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, b"OK\n")


def test_the_server_sends_its_metadata_first_then_a_chunk_per_observation(
    scripted_server: tuple[ScriptedPolicy, PolicyServer],
) -> None:
    policy, server = scripted_server
    client = PolicyClient(server.url)
    try:
        actions = client.infer(observation())
    finally:
        client.close()
    assert dict(client.metadata) == {"policy": "scripted", "action_dim": 7}
    assert (actions.shape, float(actions[0, 0]), sorted(client.server_timing)) == ((4, 7), 0.25, ["infer_ms"])
    assert policy.observations[0].images["front"].shape == (224, 224, 3)


def test_a_policy_exception_reaches_the_client_as_its_traceback_then_a_1011_close(
    scripted_server: tuple[ScriptedPolicy, PolicyServer],
) -> None:
    _, server = scripted_server
    with connect(server.url, max_size=None) as websocket:
        websocket.recv()  # metadata
        websocket.send(msgpack_numpy.packb(observation().to_wire()))
        websocket.recv()  # the good chunk
        websocket.send(msgpack_numpy.packb(observation().to_wire()))
        text = websocket.recv(timeout=5)
        websocket.recv_messages.close()
        assert isinstance(text, str)
        assert "Traceback" in text
        assert "ValueError: weights not loaded" in text
    assert websocket.close_code == 1011


def test_the_client_turns_a_server_traceback_into_policy_error(
    scripted_server: tuple[ScriptedPolicy, PolicyServer],
) -> None:
    _, server = scripted_server
    client = PolicyClient(server.url)
    client.infer(observation())
    with pytest.raises(PolicyError) as caught:
        client.infer(observation())
    assert (caught.value.reason, "weights not loaded" in caught.value.detail) == ("server_error", True)


def test_no_server_is_server_unavailable() -> None:
    with PolicyServer(ScriptedPolicy([Step(chunk(0.1))])) as server:
        url = server.url
    with pytest.raises(PolicyError) as caught:
        PolicyClient(url, connect_timeout_s=1.0)
    assert caught.value.reason == "server_unavailable"


def test_the_oracle_is_an_installed_entry_point() -> None:
    assert isinstance(load_policy("oracle"), OraclePolicy)


def test_an_unknown_policy_name_lists_the_installed_ones() -> None:
    with pytest.raises(PolicyNotFound, match=r"no installed policy 'gpt5'.*installed: oracle"):
        load_policy("gpt5")


def test_policy_server_command_prints_a_ready_line_and_exits_cleanly_on_sigterm() -> None:
    server = PolicyServerProcess("oracle")
    client = PolicyClient(server.url)
    metadata = dict(client.metadata)
    client.close()
    assert server.ready_line == f"policy server ready: {server.url} (policy oracle)"
    assert (metadata["policy"], server.stop()) == ("oracle", 0)


def test_policy_server_command_refuses_an_unknown_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy-server", "--policy", "nope", "--port", "0"]) == 2
    assert "no installed policy 'nope'" in capsys.readouterr().err
