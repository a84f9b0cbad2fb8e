"""idx files, the MNIST family's format: read into numpy arrays, their promised size checked."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from pruneaudit.errors import PruneAuditError

_IDX_TYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read an idx file (the MNIST family's format) into a native-endian numpy array.

    Hand-written because torchvision's reader asserts rather than explains and cannot be used
    for KMNIST without its training images. Checks the magic number and that the file holds
    exactly the bytes its header promises.
    """
    path = Path(path)
    data = path.read_bytes()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES or not data[3]:
        raise PruneAuditError(
            f"{path} is not an idx file: magic number {data[:4].hex() or '(empty)'}, expected "
            f"00 00 <type in {sorted(_IDX_TYPES)}> <ndim >= 1>"
        )
    dtype, ndim = _IDX_TYPES[data[2]], data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise PruneAuditError(f"{path} is truncated: {len(data)} bytes, header needs {header}")
    dims = struct.unpack(f">{ndim}I", data[4:header])
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != expected:
        raise PruneAuditError(
            f"{path} is truncated or corrupt: shape {dims} needs {expected} data bytes, "
            f"found {len(data) - header}"
        )
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(dims)
    return array.astype(dtype.newbyteorder("="))


def idx_size(path: Path) -> int | None:
    """The size in bytes an idx file's header promises, or None if the header is unreadable."""
    with path.open("rb") as f:
        head = f.read(4)
        if len(head) < 4 or head[:2] != b"\0\0" or head[2] not in _IDX_TYPES or not head[3]:
            return None
        dims_raw = f.read(4 * head[3])
    if len(dims_raw) < 4 * head[3]:
        return None
    dims = struct.unpack(f">{head[3]}I", dims_raw)
    return 4 + 4 * head[3] + int(np.prod(dims, dtype=np.int64)) * _IDX_TYPES[head[2]].itemsize


__all__ = ["idx_size", "read_idx"]
