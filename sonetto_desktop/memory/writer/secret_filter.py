"""Content the memory writer must never store: secrets and credentials.

The writer's prompt is the first line of defence; this check catches what slips through, without
refusing ordinary facts (phone-length numbers, dates).
"""

from __future__ import annotations

import re

_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("身份证号", re.compile(r"(?<!\d)\d{17}[\dXx](?![\dA-Za-z])")),
    ("银行卡号", re.compile(r"(?<!\d)(?:\d[ -]?){15,18}\d(?!\d)")),
    ("API Key / 令牌", re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b"
                                  r"|\bxox[abpr]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("私钥", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("密码 / 验证码", re.compile(r"(?:密码|口令|验证码|PIN码|支付码|password|passwd|pwd|passcode)\s*(?:是|为|:|：|=)\s*\S{3,}",
                              re.IGNORECASE)),
    ("密钥 / 令牌", re.compile(r"(?:api[ _-]?key|secret|token|密钥|令牌)\s*(?:是|为|:|：|=)\s*[A-Za-z0-9_\-./+]{8,}",
                             re.IGNORECASE)),
)


def find_secret(text: str) -> str | None:
    """The kind of secret ``text`` seems to contain (for the error message), or ``None``."""
    for label, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return label
    return None
