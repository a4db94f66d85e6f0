"""The offline recall index saved beside its store, so a restart does not re-tokenize every memory.

``<store folder>/<store stem>.recall-index.npz`` (numpy's uncompressed zip of arrays, loaded with
``allow_pickle=False``) holds the compacted postings, the per-memory columns and a JSON header:
format and tokenizer versions, and the store's ``version_token()`` at the time the index matched
the store. It holds what the store holds (ids, texts, themes, times, hit counts) and nothing else.

It is written atomically (temporary file, fsync, rename) and never trusted blindly: a damaged
file, another format or tokenizer version raise :class:`IndexFileError` (the caller rebuilds);
a different or unknown version token means "verify against the store" (the caller diffs). Every
array's declared shape is checked against the bytes the file really holds before anything is
allocated, so a header claiming a huge shape is damage like any other, not a MemoryError.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy_format

from ..files import atomic_file
from .doc_table import DocTable
from .postings import Postings

FORMAT = 2
SUFFIX = ".recall-index.npz"


class IndexFileError(Exception):
    """The saved index cannot be used (missing, damaged or from another version)."""


def index_path_for(mm: Any) -> Path | None:
    """Where the index of store ``mm`` lives (None for a store without a file path)."""
    path = getattr(mm, "path", None)
    if not isinstance(path, (str, os.PathLike)):
        return None
    path = Path(path)
    return path.with_name(path.stem + SUFFIX)


def save(path: Path, postings: Postings, docs: DocTable, *, token: str | None, tokenizer: str) -> None:
    """Write a compacted index atomically (the old file stays whole if this fails)."""
    columns, strings = docs.arrays()
    header = {"format": FORMAT, "tokenizer": tokenizer, "token": token, **strings}
    arrays = {**{f"p_{k}": v for k, v in postings.arrays().items()}, **{f"d_{k}": v for k, v in columns.items()}}
    arrays["header"] = np.frombuffer(json.dumps(header, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)
    with atomic_file(path) as fh:  # memory text: owner-only, like the store
        np.savez(fh, **arrays)


def _check_shapes(fh: Any) -> None:
    """Raise ValueError unless every member is a plain ``.npy`` array whose header's shape and
    type account exactly for the bytes stored after it (nothing is allocated here)."""
    with zipfile.ZipFile(fh) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                raise ValueError(f"unexpected member {info.filename!r}")
            with archive.open(info) as member:
                version = npy_format.read_magic(member)
                read_header = (npy_format.read_array_header_1_0 if version == (1, 0)
                               else npy_format.read_array_header_2_0)
                shape, _, dtype = read_header(member)
                stored = info.file_size - member.tell()
            if dtype.hasobject:
                raise ValueError(f"{info.filename}: object arrays are not allowed")
            declared = math.prod(int(n) for n in shape) * dtype.itemsize
            if declared != stored:
                raise ValueError(f"{info.filename}: header declares {declared} bytes, the file holds {stored}")
    fh.seek(0)


def load(path: Path, *, tokenizer: str) -> tuple[Postings, DocTable, str | None]:
    """(postings, documents, saved version token). Raises IndexFileError if it cannot be used."""
    try:
        # Opened here, so the file is closed even when numpy gives up on a damaged archive.
        with open(path, "rb") as fh:
            _check_shapes(fh)
            with np.load(fh, allow_pickle=False) as data:
                header = json.loads(bytes(data["header"]).decode("utf-8"))
                if not isinstance(header, dict) or header.get("format") != FORMAT:
                    raise IndexFileError(f"{path.name}: another index format")
                if header.get("tokenizer") != tokenizer:
                    raise IndexFileError(f"{path.name}: made by another tokenizer version")
                postings = Postings.from_arrays({k[2:]: data[k] for k in data.files if k.startswith("p_")})
                docs = DocTable.from_arrays({k[2:]: data[k] for k in data.files if k.startswith("d_")}, header)
    except IndexFileError:
        raise
    except FileNotFoundError as exc:
        raise IndexFileError(f"{path.name}: no saved index") from exc
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, json.JSONDecodeError, EOFError,
            MemoryError) as exc:
        raise IndexFileError(f"{path.name}: damaged ({exc})") from exc
    if postings.n_slots != docs.n_slots:
        raise IndexFileError(f"{path.name}: postings and documents disagree")
    token = header.get("token")
    return postings, docs, token if isinstance(token, str) else None
