"""Opening a config file safely: inside its directory, a regular file, bounded in size.

Every file a user hands the executive (skill manifests, knowledge bundles,
YAML trees, fault and scene files, profiles) is opened here, so the rules
hold at every door at once:

- a symlink may point anywhere inside the file's directory (or the root it
  was found under, e.g. a skill directory), never outside it: a link in a
  skill folder to ``/etc/passwd`` or to someone else's manifest is refused;
- a symlink loop is named as one, not reported as a missing file;
- only regular files are read (a FIFO would block, ``/dev/zero`` never ends);
- at most ``limit`` bytes are read, whatever the file's size claims, so a
  file that grows while it is read cannot blow memory.

Every refusal is a ``ManifestError`` whose problem names the file and the
``(file)`` field.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from bt_executive.skills.errors import ManifestError

FILE_FIELD = "(file)"
"""The field a problem with the file itself (rather than a field inside it) is reported under."""


def resolve_inside(path: Path, root: Path | None = None, place: str | None = None) -> Path:
    """The real path of ``path``, which must lie inside ``root`` (default: the directory holding ``path``).

    ``place`` names ``root`` in the refusal (default: "its directory (ROOT)").
    """
    source = str(path)
    try:
        real = Path(os.path.realpath(path, strict=True))
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ManifestError.single(source, FILE_FIELD, "symlink loop (a link that leads back to itself)") from None
        if err.errno == errno.ENOENT and path.is_symlink():
            target = os.readlink(path)
            raise ManifestError.single(source, FILE_FIELD, f"symlink to {target!r}, which does not exist") from None
        raise ManifestError.single(source, FILE_FIELD, f"cannot read: {err.strerror or err}") from None
    base = root if root is not None else Path(path).absolute().parent
    try:
        real_base = Path(os.path.realpath(base, strict=True))
    except OSError as err:
        raise ManifestError.single(str(base), FILE_FIELD, f"cannot read the directory: {err.strerror or err}") from None
    if not real.is_relative_to(real_base):
        place = place or f"its directory ({base})"
        raise ManifestError.single(source, FILE_FIELD, f"symlink points outside {place} (to {real})")
    return real


def read_bounded(
    path: Path, limit: int, *, root: Path | None = None, place: str | None = None, what: str = "config files"
) -> bytes:
    """The bytes of ``path``: inside ``root``, a regular file, at most ``limit`` bytes; else ManifestError.

    ``what`` names the kind of file in the size refusal ("skill manifests are limited to ...").
    """
    source = str(path)
    real = resolve_inside(path, root, place)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(real, flags)
    except OSError as err:
        raise ManifestError.single(source, FILE_FIELD, f"cannot read: {err.strerror or err}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ManifestError.single(source, FILE_FIELD, "not a regular file")
        if info.st_size > limit:
            raise ManifestError.single(source, FILE_FIELD, f"{info.st_size} bytes; {what} are limited to {limit}")
        try:
            raw = handle.read(limit + 1)  # a file that grew since fstat() is still cut off at the limit
        except OSError as err:
            raise ManifestError.single(source, FILE_FIELD, f"cannot read: {err.strerror or err}") from None
    if len(raw) > limit:
        raise ManifestError.single(source, FILE_FIELD, f"more than {limit} bytes; {what} are limited to {limit}")
    return raw
