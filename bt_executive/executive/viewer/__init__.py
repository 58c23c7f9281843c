"""The web viewer: a local page that renders behaviour trees with py_trees_js.

``bt-executive view`` serves it on 127.0.0.1, either live (snapshots from the
executive's ``~/tree`` topic pushed to the browser as server-sent events) or
replaying a run directory with a timeline slider. The JavaScript library and
its dependencies come out of the ``py-trees-js`` PyPI package's compiled Qt
resource module (``rcc``), read without Qt (``assets``); nothing is fetched
from the network and none of the library's files are copied into this repo.
"""
