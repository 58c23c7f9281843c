"""The process spin loop outlives a callback that raises: the rest of the process keeps working."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

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


STUCK = """
import os, signal, sys, threading, time
from bt_executive.cli import ros_process
ros_process.STUCK_DUMP_S = 1.0
from bt_executive.cli.ros_process import RosProcess

def held_forever() -> None:
    threading.Event().wait()  # a shutdown step that never returns

with RosProcess(threads=1) as process:
    process.handle_signals(held_forever)
    process.start()
    print("ready", flush=True)
    process.stop_requested.wait()
"""


def test_a_process_whose_shutdown_hangs_prints_where_every_thread_stands_before_it_is_killed(
    ros_domain_id: int,
) -> None:
    env = {**os.environ, "ROS_DOMAIN_ID": str(ros_domain_id)}
    child = subprocess.Popen(
        [sys.executable, "-c", STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGINT)
        time.sleep(3.0)  # the dump is due 1 s after the signal
    finally:
        child.kill()
        _, stderr = child.communicate(timeout=30)
    stacks = [line.strip() for line in stderr.splitlines() if line.strip().startswith(("Thread", 'File "<string>"'))]
    assert any("held_forever" in line for line in stacks), stderr[-2000:]
