"""The process spin loop outlives a callback that raises: the rest of the process keeps working."""

from __future__ import annotations

import logging
import threading

import pytest

pytest.importorskip("rclpy")

from rclpy.node import Node

from bt_executive.cli.ros_process import RosProcess


def test_a_raising_callback_is_logged_and_the_process_spins_on(
    ros_domain_id: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ROS_DOMAIN_ID", str(ros_domain_id))
    ticks_after = threading.Event()
    raised = threading.Event()

    def raise_once() -> None:
        if not raised.is_set():
            raised.set()
            raise KeyError("a goal id rclpy no longer holds")

    def later() -> None:
        if raised.is_set():
            ticks_after.set()

    with caplog.at_level(logging.ERROR, logger="bt_executive.cli.ros_process"), RosProcess(threads=2) as process:
        node = process.add(Node("spin_survivor", context=process.context))
        node.create_timer(0.01, raise_once)
        node.create_timer(0.01, later)
        process.start()
        assert raised.wait(30.0), "the raising timer never ran"
        assert ticks_after.wait(30.0), "nothing ran after a callback raised: the spin loop died"
        assert process.callback_errors >= 1
    assert any("a callback raised" in r.getMessage() and r.exc_info for r in caplog.records)
