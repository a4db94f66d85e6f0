"""How far the first build of the offline recall index has come (no numpy, no Qt: the UI imports it).

``MechanicalRetriever.warm_up(progress=...)`` reports :class:`IndexProgress` while it tokenizes a
bank without a usable saved index (a person's first start after an import): ``done`` of ``total``
memories indexed, then once more with ``finished`` set when the index is complete and saved.
"""

from __future__ import annotations

from dataclasses import dataclass

REPORT_FROM = 2000  # smaller builds take well under a second: nothing to show


@dataclass(frozen=True)
class IndexProgress:
    done: int
    total: int
    finished: bool = False
