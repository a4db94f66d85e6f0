"""Content the memory writer must never store: secrets and credentials.

The writer's prompt is the first line of defence; this check catches what slips through, without
refusing ordinary facts. A secret needs a *value*: "用户觉得记密码是件很麻烦的事" talks about passwords
and stays; "密码是 sunset2026" gives one away and is refused. Long digit runs are judged by what
they are called and by their check digits: a card number is a 16–19 digit run that a card word
names (卡号, 银行卡, 信用卡 …), or an unnamed run that passes the Luhn check; a run that something else
names (学号, 订单号, 快递单号 …) is that thing. An ID-card number is 17 digits and a check character
whose digits 7–14 are a birth date.
"""

from __future__ import annotations

import re
from datetime import date

_CARD_RUN = re.compile(r"(?<![\dA-Za-z])\d(?:[ -]?\d){15,18}(?![\dA-Za-z])")
_ID_RUN = re.compile(r"(?<![\dA-Za-z])(\d{6})(\d{8})\d{3}[\dXx](?![\dA-Za-z])")
#: Words that name a digit run a card number (within a few characters before it).
_CARD_WORDS = re.compile(r"(?:银行卡|信用卡|借记卡|储蓄卡|卡号|工资卡|bank\s*card|credit\s*card|card\s*(?:no|number))",
                         re.IGNORECASE)
#: Words that name a digit run something that is not a card number.
_OTHER_WORDS = re.compile(r"(?:学号|工号|学籍号|考号|准考证|订单|单号|运单|快递|编号|序列号|流水号|会员号|会员卡号|QQ|微信号|手机号|电话|"
                          r"账单号|票号|车次|型号|ISBN|student\s*(?:id|number)|order|tracking)", re.IGNORECASE)
_ID_WORDS = re.compile(r"(?:身份证|证件号|ID\s*card)", re.IGNORECASE)
_LABEL_WINDOW = 12  # characters before a number in which its name is looked for

# A credential value: printable ASCII without spaces (passwords, codes, keys). Chinese words after
# "密码是" ("密码是件麻烦事") are talk about passwords, not a password.
_VALUE = r"[\"'“‘「]?[\x21-\x7e]{4,}"
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("API Key / 令牌", re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b"
                                  r"|\bxox[abpr]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("私钥", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("密码 / 验证码", re.compile(r"(?:密码|口令|验证码|PIN码|PIN|支付码|password|passwd|pwd|passcode)\s*(?:是|为|:|：|=|改成了?|设成了?)\s*"
                              + _VALUE, re.IGNORECASE)),
    ("密钥 / 令牌", re.compile(r"(?:api[ _-]?key|secret|token|密钥|令牌)\s*(?:是|为|:|：|=)\s*[\"'“]?[A-Za-z0-9_\-./+]{8,}",
                             re.IGNORECASE)),
)


def luhn_ok(digits: str) -> bool:
    """The Luhn check digit test that payment card numbers pass (and most other numbers fail)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _label_before(text: str, start: int, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(text[max(0, start - _LABEL_WINDOW):start]))


def _is_card_number(text: str, match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    if not 16 <= len(digits) <= 19:
        return False
    if _label_before(text, match.start(), _CARD_WORDS):
        return True
    if _label_before(text, match.start(), _OTHER_WORDS) or _label_before(text, match.start(), _ID_WORDS):
        return False
    return luhn_ok(digits)


def _is_birth_date(yyyymmdd: str) -> bool:
    try:
        born = date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:]))
    except ValueError:
        return False
    return 1900 <= born.year <= 2100


def _is_id_number(text: str, match: re.Match[str]) -> bool:
    if _label_before(text, match.start(), _ID_WORDS):
        return True
    if _label_before(text, match.start(), _OTHER_WORDS):
        return False
    return _is_birth_date(match.group(2))


def find_secret(text: str) -> str | None:
    """The kind of secret ``text`` seems to contain (for the error message), or ``None``."""
    for match in _ID_RUN.finditer(text):
        if _is_id_number(text, match):
            return "身份证号"
    for match in _CARD_RUN.finditer(text):
        if _is_card_number(text, match):
            return "银行卡号"
    for label, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return label
    return None


_PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)")
_HIDDEN = {"身份证号": "［已隐去的身份证号］", "银行卡号": "［已隐去的银行卡号］", "私钥": "［已隐去的私钥］"}


def redact_secrets(text: str) -> tuple[str, int]:
    """``text`` with every secret value ``find_secret`` would refuse replaced by a note of what it
    was (``［已隐去的密码 / 验证码］``), and how many were hidden: for text sent to a model that must
    not see them (imported chats, where people pasted keys and passwords)."""
    count = 0

    def hide(kind: str) -> str:
        nonlocal count
        count += 1
        return _HIDDEN.get(kind, f"［已隐去的{kind}］")

    text = _PRIVATE_KEY_BLOCK.sub(lambda m: hide("私钥"), text)
    text = _ID_RUN.sub(lambda m: hide("身份证号") if _is_id_number(m.string, m) else m.group(0), text)
    text = _CARD_RUN.sub(lambda m: hide("银行卡号") if _is_card_number(m.string, m) else m.group(0), text)
    for label, pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m, label=label: hide(label), text)
    return text, count
