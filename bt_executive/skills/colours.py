"""Colour words as RGBA: what the sim renders a scene's colour as, and what RViz markers show it as.

A colour is the word people call an object by (``pink``, ``light blue``),
free text in a scene and in the world state. One table and one rule turn it
into RGBA, so the sim's frames and the executive's markers agree.
"""

from __future__ import annotations

import hashlib

Rgba = tuple[float, float, float, float]

COLOURS: dict[str, Rgba] = {
    "red": (0.85, 0.12, 0.10, 1.0),
    "green": (0.15, 0.65, 0.20, 1.0),
    "blue": (0.12, 0.30, 0.85, 1.0),
    "yellow": (0.95, 0.80, 0.10, 1.0),
    "orange": (0.95, 0.50, 0.10, 1.0),
    "purple": (0.55, 0.20, 0.70, 1.0),
    "white": (0.92, 0.92, 0.90, 1.0),
    "grey": (0.55, 0.55, 0.55, 1.0),
    "gray": (0.55, 0.55, 0.55, 1.0),
    "black": (0.08, 0.08, 0.08, 1.0),
    "brown": (0.50, 0.32, 0.18, 1.0),
    "pink": (0.95, 0.45, 0.65, 1.0),
    "magenta": (0.85, 0.15, 0.75, 1.0),
    "cyan": (0.10, 0.75, 0.85, 1.0),
    "teal": (0.05, 0.50, 0.50, 1.0),
    "navy": (0.06, 0.10, 0.45, 1.0),
    "lime": (0.55, 0.85, 0.15, 1.0),
    "olive": (0.45, 0.45, 0.12, 1.0),
    "maroon": (0.45, 0.06, 0.10, 1.0),
    "beige": (0.90, 0.85, 0.70, 1.0),
    "gold": (0.85, 0.68, 0.15, 1.0),
    "silver": (0.75, 0.75, 0.78, 1.0),
}
"""What the common colour words render as. A scene may name any colour (``Colour``); ``colour_rgba``
finds the others one."""

COLOUR_SHADES: dict[str, float] = {"light": 1.0, "dark": 0.0}
"""``light blue``, ``dark-green``: a colour of the table mixed halfway towards white (1) or black (0)."""


def colour_rgba(colour: str) -> Rgba:
    """The RGBA a colour word renders as: the table's, a shade of a table colour, else one derived from the word.

    The derived colour is the first three bytes of the word's SHA-256, each
    scaled into 0.15..0.85 (never near black or white, so it stays visible on
    the table): the same on every machine and run, unlike ``hash()``, so a
    scene's frames are reproducible. It is stable, not faithful; a colour that
    a policy or a camera-reading planner must see as itself belongs in
    ``COLOURS``.
    """
    if colour in COLOURS:
        return COLOURS[colour]
    shade, _, base = colour.replace("-", " ").partition(" ")
    if shade in COLOUR_SHADES and base in COLOURS:
        towards = COLOUR_SHADES[shade]
        r, g, b, a = COLOURS[base]
        return (0.5 * (r + towards), 0.5 * (g + towards), 0.5 * (b + towards), a)
    digest = hashlib.sha256(colour.encode("utf-8")).digest()
    r, g, b = (0.15 + 0.7 * byte / 255.0 for byte in digest[:3])
    return (r, g, b, 1.0)
