"""ROS 2 launch file: the bt_executive node with its parameters file (for ROS 2 installations).

    ros2 launch bt_executive bt_executive.launch.py namespace:=robot1 planner:=stub
    ros2 launch bt_executive bt_executive.launch.py params_file:=/path/to/executive.yaml

The defaults are the node's: the shipped parameters file, and its planner
(``auto``) unless ``planner`` names another profile. The node configures and
activates itself; a lifecycle manager that brings it up instead gets it
unconfigured with ``bt-executive serve --no-autostart``.

The skill action servers are the robot's own (on the real robot, its
drivers; here, `bt-executive sim`). Where `ros2 launch` is not installed
(PyPI-only ROS), `bt-executive launch config/robot.yaml` starts the same
processes.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription


def generate_launch_description() -> LaunchDescription:
    """The executive node in a namespace, configured by a parameters file and two overrides."""
    default_params = PathJoinSubstitution([FindPackageShare("bt_executive"), "config", "executive.yaml"])
    return LaunchDescription(
        [
            DeclareLaunchArgument("namespace", default_value="", description="ROS namespace of the robot"),
            DeclareLaunchArgument("params_file", default_value=default_params, description="executive parameters"),
            DeclareLaunchArgument(
                "planner", default_value="", description="planner profile; empty: the parameters file's (auto)"
            ),
            Node(
                package="bt_executive",
                executable="bt-executive",
                name="bt_executive",
                namespace=LaunchConfiguration("namespace"),
                arguments=[
                    "serve",
                    "--params",
                    LaunchConfiguration("params_file"),
                    "--planner",
                    LaunchConfiguration("planner"),
                    "--namespace",
                    LaunchConfiguration("namespace"),
                ],
                output="screen",
                emulate_tty=True,
            ),
        ]
    )
