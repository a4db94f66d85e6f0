"""Secrets the memory writer must never see or store: passwords, codes, keys, ID and card numbers.

Two jobs, one detector. ``redact_secrets`` hides each secret *value* in a text before the writer's
model reads it (every turn the writer takes: a chat, an imported conversation, one another app hands
over), leaving the words around it: "my wifi password is ［已隐去的密码］" still says the person has a
wifi password. ``find_secret`` says what kind of secret a text the writer (or another app) wants to
store holds, so the write is refused. Only an app's writes are checked; the person's own are theirs.

A secret needs a *value*. Talk about secrets stays: "用户觉得记密码很麻烦", "the verification code
never arrived", "I use 1Password", "pwd = print working directory". A value is found three ways:

- by its shape alone: a private key block, an API key's prefix (``sk-``, ``ghp_``, ``AKIA`` …), an
  ID-card number (17 digits and a check character whose digits 7–14 are a birth date), a card
  number (16–19 digits that a card word names or that pass the Luhn check; a run that something
  else names — 学号, 订单号, 公交卡 — is that thing);
- after a label that names a secret (``_LABELS``: 密码, 验证码, PIN, passcode, door code, API key,
  token, passport number …) in the ways people say it, Chinese or English: "X 是 V", "X：V",
  "X V", "把 X 改成 V", "the X for Y is V", "X I use is V", "X changed to V", "set the X to V";
- before such a label: "V 是我的 X", "V is my X", "use V as the X".

The value must look like one of the label's kind (``_VALUE_CHECKS``): a password has a digit, a
symbol or mixed case (a plain word only where nothing else can be meant, "my password is
sunshine.", "the password for my router is admin"; three to eight plain words making up the rest of
the clause after a colon, "password: correct horse battery staple"); a PIN or a door code is 3–12
digits, also read out one by one ("1 2 3 4") or in Chinese numerals as voice input writes them
("七七三一零", "幺三五七"; not a quantity: "三四五次", "二〇二四年"); a key is long and mixes letters and digits; an ID
is mostly digits; a number followed by a unit ("8 位", "12 characters", "2024年") is a length or a
date, not a value. Every hidden value becomes the same placeholder, ``［已隐去的<kind>］``
(:func:`placeholder`), whichever way the text came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# ── kinds and the placeholder ───────────────────────────────────────

PASSWORD = "密码"
CODE = "验证码"
KEY = "密钥"
PRIVATE_KEY = "私钥"
ID_NUMBER = "身份证号"
DOCUMENT = "证件号"
CARD = "银行卡号"
ACCOUNT = "银行账号"

#: A hidden value, as every path shows it (what :func:`placeholder` makes).
HIDDEN = re.compile(r"［已隐去的[^［］\s]{1,8}］")


def placeholder(kind: str) -> str:
    """What a hidden secret of ``kind`` becomes, everywhere: ``［已隐去的密码］``."""
    return f"［已隐去的{kind}］"


@dataclass(frozen=True)
class Secret:
    """A secret value found in a text: its kind and where the value is (``text[start:end]``)."""

    kind: str
    start: int
    end: int


# ── values known by their shape ─────────────────────────────────────

_CARD_RUN = re.compile(r"(?<![\dA-Za-z])\d(?:[ -]?\d){15,18}(?![\dA-Za-z])")
_ID_RUN = re.compile(r"(?<![\dA-Za-z])(\d{6})(\d{8})\d{3}[\dXx](?![\dA-Za-z])")
_PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)")
_KEY_SHAPES = re.compile(
    # (ASCII edges, not \b: a Chinese character is a word character, so "用的是sk-…" has no \b before the key)
    r"(?<![A-Za-z0-9_])(?:(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_\-]{16,}|AKIA[0-9A-Z]{16}(?![A-Za-z0-9_])|AIza[0-9A-Za-z_\-]{30,}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|hf_[A-Za-z0-9]{24,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{6,})")
#: Words that name a digit run a bank card's number (within a few characters before it).
_BANK_WORDS = re.compile(r"银行卡|信用卡|借记卡|储蓄卡|工资卡|bank\s*card|credit\s*card|debit\s*card", re.IGNORECASE)
_CARD_WORDS = re.compile(r"卡号|card\s*(?:no|number)", re.IGNORECASE)
#: Words that name a digit run something that is not a card number.
_OTHER_WORDS = re.compile(
    r"学号|工号|学籍号|考号|准考证|订单|单号|运单|快递|编号|序列号|流水号|会员|QQ|微信号|手机号|电话|账单号|票号|车次|型号|"
    r"公交|交通卡|一卡通|饭卡|校园卡|加油卡|购物卡|图书|借书|门禁卡|停车|积分|ISBN|student|order|tracking|transit|bus\s*card|"
    r"library|member|loyalty|gift\s*card|phone", re.IGNORECASE)
_ID_WORDS = re.compile(r"身份证|证件号|驾驶证|驾照|社保|ID\s*card|identity", re.IGNORECASE)
_LABEL_WINDOW = 12  # characters before a number in which its name is looked for


def luhn_ok(digits: str) -> bool:
    """The Luhn check digit test that payment card numbers pass (and most other numbers fail)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _named(text: str, start: int, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(text, max(0, start - _LABEL_WINDOW), start))


def _is_card_number(text: str, match: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    if not 16 <= len(digits) <= 19:
        return False
    if _named(text, match.start(), _BANK_WORDS):
        return True
    if _named(text, match.start(), _OTHER_WORDS) or _named(text, match.start(), _ID_WORDS):
        return False
    return _named(text, match.start(), _CARD_WORDS) or luhn_ok(digits)


def _is_birth_date(yyyymmdd: str) -> bool:
    try:
        born = date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:]))
    except ValueError:
        return False
    return 1900 <= born.year <= 2100


def _is_id_number(text: str, match: re.Match[str]) -> bool:
    if _named(text, match.start(), _ID_WORDS):
        return True
    if _named(text, match.start(), _OTHER_WORDS):
        return False
    return _is_birth_date(match.group(2))


def _shapes(text: str) -> list[Secret]:
    found = [Secret(PRIVATE_KEY, m.start(), m.end()) for m in _PRIVATE_KEY_BLOCK.finditer(text)]
    found += [Secret(KEY, m.start(), m.end()) for m in _KEY_SHAPES.finditer(text)]
    found += [Secret(ID_NUMBER, m.start(), m.end()) for m in _ID_RUN.finditer(text) if _is_id_number(text, m)]
    found += [Secret(CARD, m.start(), m.end()) for m in _CARD_RUN.finditer(text) if _is_card_number(text, m)]
    return found


# ── values a label names ────────────────────────────────────────────

@dataclass(frozen=True)
class _Label:
    kind: str
    value: str  # the kind of value it takes (``_VALUE_CHECKS``)
    strict: bool = False  # "pwd", "pw": the value must have a digit or a symbol (no plain word)
    colon_only: bool = False  # "pass": only "pass: V" / "pass=V"
    not_after: str = ""  # words right before it that make it something else ("student ID number")
    alone: bool = False  # a "user / password" pair label whose value may also be the password alone


_NUM = r"(?:numbers?|no\.?|#)"
_LOCKABLE = (r"door|doors|gate|garage|lock|padlock|safe|alarm|building|house|apartment|flat|locker|keypad|lockbox|"
             r"vault|office|entrance|intercom|wi-?fi|router|phone|laptop|computer|ipad|iphone|tablet|suitcase|briefcase")
_NOT_BANK = (r"bus|transit|library|member|membership|loyalty|gift|sim|student|id|metro|subway|access|key|business|"
             r"report|sd|memory|graphics|video|sound|network|reward|rewards|gym|club|health|insurance|parking|meal|"
             r"canteen|campus|staff|employee|prepaid|game|phone")
_NOT_ID = (r"student|employee|staff|member|user|customer|order|tracking|booking|apple|account|login|player|game|"
           r"wechat|qq|device|session|client|transaction|reference|ticket|school|work|company|library|vehicle|"
           r"product|model|serial|app|bundle|chat|group|team|project|process|thread|caller|face|touch|steam")

_LABELS: tuple[tuple[str, _Label], ...] = (
    # Chinese (longest first where one contains another); an English code word after what it opens
    # ("门禁code是5521", "银行卡PIN是4421") before the names of those things alone
    (r"(?i:(?:门禁|开门|门锁|开锁|解锁|锁屏|保险柜|保险箱|密码锁|手机|银行卡)\s*(?:pin|codes?|passcodes?))(?![A-Za-z])",
     _Label(PASSWORD, "code")),
    (r"公民身份号码|身份证号码?|身份证|证件号码?", _Label(ID_NUMBER, "id")),
    (r"护照号码?|护照|驾驶证号码?|驾驶证|驾照号码?|驾照|社保卡号|社保号码?|社会保障号码?|医保卡号|通行证号码?",
     _Label(DOCUMENT, "id")),
    (r"银行卡号码?|银行卡|信用卡号码?|信用卡|借记卡号?|借记卡|储蓄卡号?|储蓄卡|工资卡号?|工资卡|卡号",
     _Label(CARD, "card", not_after=r"公交|交通|会员|饭|校园|一卡通|加油|购物|电费|水费|燃气|图书|借书|门禁|电话|"
                                     r"手机|游戏|点|充值|话费|学生|礼品|超市|健身|停车|员工|工作|上网|储值|积分|SIM|sim|尾")),
    (r"银行账号|银行账户|收款账号|对公账户", _Label(ACCOUNT, "account")),
    (r"(?i:cvv2?|cvc2?|csc)\s*码|验证码|校验码|动态码|安全码|授权码|恢复码|备用码|短信码", _Label(CODE, "code")),
    (r"助记词", _Label(KEY, "words")),
    (r"密钥|秘钥|私钥|令牌|激活码", _Label(KEY, "key")),
    (r"(?i:pin)\s*码|门禁码|开门码|门锁码|开锁码|解锁码|锁屏码|门禁", _Label(PASSWORD, "code")),
    (r"密码|口令", _Label(PASSWORD, "password")),
    # English
    (r"(?:national\s+|citizen\s+)?id(?:entity)?[\s-]+card(?:\s+" + _NUM + r")?|(?:national|citizen)\s+id(?:\s+"
     + _NUM + r")?|identity\s+" + _NUM + r"|id\s*" + _NUM, _Label(ID_NUMBER, "id", not_after=_NOT_ID)),
    (r"passport(?:\s+" + _NUM + r")?|social\s+security(?:\s+" + _NUM + r")?|(?-i:SSN)|social\s+insurance\s+"
     + _NUM + r"|national\s+insurance\s+" + _NUM + r"|driv(?:er['’]?s?|ing)\s+licen[cs]e(?:\s+" + _NUM
     + r")?|tax\s+(?:id|identification|file)(?:\s+" + _NUM + r")?|medicare\s+(?:card\s+)?" + _NUM,
     _Label(DOCUMENT, "id")),
    (r"(?:credit|debit|bank|atm|visa|mastercard|amex|cheque|check)[\s-]*card(?:\s+" + _NUM + r")?|card\s+" + _NUM,
     _Label(CARD, "card", not_after=_NOT_BANK)),
    (r"(?:bank|savings|checking|current|brokerage)\s+account(?:\s+" + _NUM + r")?|iban",
     _Label(ACCOUNT, "account")),
    (r"(?:verification|security|one[\s-]?time|2fa|two[\s-]?factor|mfa|authentication|authorization|auth|login|"
     r"log-?in|sign[\s-]?in|sms|recovery|backup)(?:\s+(?:backup|recovery|login))?\s+(?:pass)?codes?"
     r"|(?-i:OTP)|otp\s+codes?|cvv2?|cvc2?|(?-i:CSC)", _Label(CODE, "code")),
    (r"(?:seed|recovery|mnemonic|backup|secret|wallet)\s+(?:phrase|words)|mnemonic", _Label(KEY, "words")),
    (r"(?:secret[\s_-]+)?(?:access|secret|private|encryption|license|licence|product|activation|client|master|"
     r"signing|api|ssh|wallet)[\s_-]?keys?(?:[\s_-]?(?:id|secret))?|(?:api|client|app)[\s_-]?secrets?"
     r"|(?:access|auth|bearer|refresh|api|session|personal\s+access|github|gitlab|slack|discord|bot|telegram|"
     r"openai|npm|pypi)[\s_-]?tokens?|tokens?|secrets?", _Label(KEY, "key")),
    (r"(?:(?:" + _LOCKABLE + r"|entry|access|disarm|arming|unlock|lock\s*screen|screen\s*lock|front[\s-]door|"
     r"back[\s-]door|key\s*box)['’]?s?[\s-]+codes?|key\s*codes?|(?:lock|padlock|safe|locker|vault|suitcase)['’]?s?\s+"
     r"(?:combos?|combinations?)|(?:combos?|combinations?)(?=\s+(?:for|to|of|on)\s+(?:\S+\s+){0,3}?(?:lock|padlock|"
     r"safe|locker|vault|suitcase|briefcase))"
     r"|(?-i:PIN)(?:\s*(?:codes?|numbers?|no\.?|#))?|pin(?:\s*(?:codes?|numbers?))?(?=\s*(?:[:=#：]|is\b|was\b|['’]s\b"
     r"|是|为|$|[,.;!?]|\d{4,8}(?![\d.,:/-]))))", _Label(PASSWORD, "code")),
    (r"codes?(?=\s+(?:for|to|of|on|at)\s+(?:\S+\s+){0,3}?(?:" + _LOCKABLE + r")\b)",
     _Label(PASSWORD, "code", not_after=r"zip|postal|post|area|country|error|status|promo|discount|coupon|source|qr|"
                                        r"bar|dress|morse|tax|product|language|exit|return|colou?r|html|css|python|"
                                        r"access|activation|referral|invite|invitation|gift|redeem|voucher|booking")),
    (r"wi-?fi[\s-]*(?:pass(?:word|code)?|key|code|pw|pwd)|network\s+(?:key|password)|pass(?:word|code|phrase)s?"
     r"|passwd|pass\s+word", _Label(PASSWORD, "password")),
    (r"pwd|pw|pword", _Label(PASSWORD, "password", strict=True)),
    (r"log-?ins?|sign-?ins?|credentials?|creds", _Label(PASSWORD, "pair")),
    (r"账号密码|账号和密码|用户名和密码|用户名密码|账密", _Label(PASSWORD, "pair", alone=True)),
    (r"pass", _Label(PASSWORD, "password", strict=True, colon_only=True)),
)

def _is_english(source: str) -> bool:
    return source[:1].isascii() and not source.startswith("(?i:")


# Finding labels: one alternation per script without groups (so the regex engine can skip ahead by
# the first character), then which label it was (``_which``). English ones stand as whole words.
_ZH_LABELS = [(re.compile(source), label) for source, label in _LABELS if not _is_english(source)]
_EN_LABELS = [(re.compile(f"(?<![A-Za-z0-9])(?:{source})(?![A-Za-z0-9])", re.IGNORECASE), label)
              for source, label in _LABELS if _is_english(source)]
_ZH_LABEL_RE = re.compile("|".join(f"(?:{source})" for source, _label in _LABELS if not _is_english(source)))
_EN_LABEL_RE = re.compile("(?<![A-Za-z0-9])(?:" + "|".join(f"(?:{source})" for source, _label in _LABELS
                                                          if _is_english(source)) + ")(?![A-Za-z0-9])",
                          re.IGNORECASE)

# After a label: what may come between it and its value, tried in this order (``_after``).
_EN_GAP = (r"(?:\s+(?:for|to|of|on|at|in|into|from|with|that|which|i|we|you|he|she|they|it|my|our|mom|dad|(?-i:[A-Z][a-z]+))"
           r"(?:\s+(?!(?:is|was|are|were|and|but|so|because|if|when|while)\b)[^\s,.;:!?]+){0,5}?)?")
_EN_COPULA = re.compile(
    _EN_GAP + r"(?P<cop>[\"']?\s*(?:[:=]|-+>|→)\s*|\s+[-–—]\s+|(?P<poss>['’]s)\s+|\s*\?\s*(?:(?:it['’]s|it\s+is)\s+)?"
    r"|\s+(?:is|was|are|were|equals|reads|became|becomes|will\s+be|should\s+be|has\s+been|had\s+been|"
    r"would\s+be|(?:has|have|had)(?:\s+(?:always|now|long))?\s+been|used\s+to\s+be)(?:\s*:)?(?:\s+(?:now|still|just|actually|currently|simply|always|basically|literally|"
    r"also|officially|again))?\s+(?:(?:changed|set|reset|updated|switched)\s+(?:to|as)\s+)?"
    r"|\s+(?:changed|set|reset|updated|switched)\s+(?:to|as|into)\s+)", re.IGNORECASE)
_EN_TO = re.compile(_EN_GAP + r"(?P<cop>\s+(?:to|as)\s+)", re.IGNORECASE)  # after "set / changed the X"
_EN_NEXT = re.compile(r"(?P<cop>\s*#?\s+)")  # "PIN 4821", "password 88886666"
_ZH_GAP = (r"\s*(?:的|值|现在|目前|一直|都|也|还|就|已经|其实|原来|应该|好像|暂时|统一|全都|全|刚刚|刚|又|我们|你们|他们|我|你|他|她|"
           r"记得|设的|设置的|改的|用的|换的|新的|新|依然|仍然|还是|已|被|给|大概|可能|据说|听说|说|是不是){0,4}")
_ZH_COPULA = re.compile(
    _ZH_GAP + r"(?P<cop>\s*(?:(?:是|为|叫|作|改成|改为|设成|设为|设置成|设置为|换成|换为|变成|更新为|更新成|修改为|修改成|重置为|"
    r"重置成)了?\s*:?|[:=])\s*)(?P<cjk>[\u4e00-\u9fff]{1,4}\s*)?")
_ZH_NEXT = re.compile(r"(?P<cop>\s*)")  # "密码 4821", "验证码583920"
_FRAMES = {"en": _EN_COPULA, "en_to": _EN_TO, "en_next": _EN_NEXT, "zh": _ZH_COPULA, "zh_next": _ZH_NEXT}
_CHANGE_VERB = re.compile(r"\b(?:set|sets|setting|changed?|changing|reset|resetting|updated?|updating|switched?|made)\b",
                          re.IGNORECASE)

# Before a label: "V is my X", "use V as the X", "V 是我的 X", "用 V 作为 X".
_EN_BEFORE = re.compile(
    r"(?:(?P<lead>^|[,;:.!?(\"“]\s*|(?<=[^\x00-\x7f])\s*)|(?<=\s))(?P<v>[\x21-\x7e]+?)\s+(?:is|was|['’]s|will\s+be)\s+(?:also\s+|still\s+|"
    r"now\s+|actually\s+)?(?:my|our|his|her|their|your|the|[A-Za-z]+['’]s)\s+(?P<mods>(?:[A-Za-z0-9'’-]+\s+){0,3})$"
    r"|(?:use|used|using|enter|entered|type|typed|try|tried|put|punch|punched|dial|dialed)\s+(?:in\s+)?"
    r"(?P<u>[\x21-\x7e]+)\s+(?:as|for)\s+(?:my|our|his|her|their|your|the|a|an)\s+(?P<umods>(?:[A-Za-z0-9'’-]+\s+){0,3})$",
    re.IGNORECASE)
_ZH_BEFORE = re.compile(
    r"(?:(?:用|拿|把)\s*(?P<u>[\x21-\x7e]+)\s*(?:作为|当作|当|做|设为|设成|设置为|设置成)"
    r"|(?P<v>(?!:)[\x21-\x7e]+)\s*(?:这个|那个|这|那)?\s*(?:就|也|才|都|应该)?(?:是|为|作为|当作|当))"
    r"(?:我|我们|你|他|她|家里|家|公司)?的?(?P<mods>[^，。！？；,.!?;\n]{0,12}?)$")
#: Words that make a label part of a longer name ("password manager", "PIN pad"): no value of it is meant.
_EN_LABEL_GOES_ON = re.compile(
    r"\s+(?:managers?|reset|resets|policy|policies|fields?|box|boxes|hints?|hash|hashes|strength|length|rules?|"
    r"requirements?|protection|protected|generators?|vaults?|apps?|prompts?|screens?|pages?|changes?|recovery|expiry|"
    r"entry|inputs?|forms?|lists?|files?|books?|notebooks?|sheets?|documents?|keepers?|storage|sharing|leaks?|"
    r"breach(?:es)?|questions?|feature|settings?|options?|attempts?|limits?|checks?|checkers?|holders?|counts?|"
    r"budgets?|usage|prices?|costs?|rates?|windows?|pads?|readers?|machines?|dialog|popup|emails?|links?|"
    r"formats?|system|scheme|game|ideas?|tips?|problems?|issues?|errors?)\b", re.IGNORECASE)
_ZH_LABEL_END = re.compile(r"\s*(?:$|[，。！？；、,.!?;:：)）\"”]|[吗呢啊哦了吧呀啦嘛哈，]|来着|\s)")
_GENERIC = re.compile(r"\b(?:most|least|worst|best|common|popular|typical|example|sample|default|weakest|strongest|"
                      r"famous|classic|terrible|bad|good|weak|strong|dumb|stupid|obvious|easiest|simplest|an?)\b"
                      r"|最常见|常见|默认|典型|示例|例子|举例|最弱|最差|糟糕|很多人|大家|别人|初始", re.IGNORECASE)

# ── what a value looks like ─────────────────────────────────────────

#: Plain words that follow "password is" without being one (and words no value is).
#: Words right before a label that make its value an example, not anyone's secret ("the default
#: password is admin123", "例如密码 abc123").
#: The cue must be the label's own word (the same clause, no one's possessive between: "I feel like my
#: password is …", "路由器默认设置我都改了，wifi密码是 …" are someone's secret).
_EXAMPLE = re.compile(r"\b(?:e\.g\.|example|examples|sample|default|dummy|fake|demo|placeholder|commonest|common|"
                      r"typical|popular)[,:]?\s+(?:(?!(?:my|our|his|her|their|mine)\b)[\w-]+\s+)?$"
                      r"|(?:示例|例如|比如|举例|举个例子|默认|常见|初始|出厂)[^，。；！？,;.!?\n我你他她]{0,6}$",
                      re.IGNORECASE)
#: A value the label is changed to is the new one: "初始密码改成了 …", "changed the default password to …".
_CHANGED_TO = re.compile(r"\s*(?:已经|已|被|都)?(?:改成|改为|改作|换成|换为|设成|设为|设置成|设置为|更新为|更新成|重置为|重置成|"
                         r"修改为|修改成)|\s+(?:was\s+|is\s+|has\s+been\s+)?(?:changed|set|updated|reset)\s+to\b",
                         re.IGNORECASE)
_CHANGE_VERB = re.compile(r"\b(?:changed|changing|change|set|setting|updated|reset|switched)\b[^.;!?]*$", re.IGNORECASE)
_TO = re.compile(r"\s+to\b", re.IGNORECASE)
#: What a value in a piece of code is instead: a call, an index, a template, an attribute, a name.
_CODE_LIKE = re.compile(r"[()\[\]{}]|^[$%<]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+(?:_[a-z]+)+$")
_NOT_VALUES = frozenset("""
a an the my your his her our their its this that these those it me mine yours him them us what which whatever
something anything nothing everything someone one same different new old not no yes also just only still now then
there here too very so such all any some both either neither each every other another on in at to for of by from
with without about under over behind inside outside near below above written stored saved kept hidden encrypted
hashed required needed mandatory optional expired changed reset wrong incorrect correct right invalid valid weak
strong long short simple easy hard difficult complicated complex secure insecure safe unsafe good bad great terrible
awful horrible fine okay ok random unique personal private secret confidential sensitive known unknown public shared
temporary default blank empty missing lost forgotten case numeric numbers digits letters characters memorable
obvious guessable predictable impossible useless annoying ridiculous silly funny stupid dumb generic common popular
unchanged protected visible shown locked blocked disabled enabled set being going getting due supposed based like
around probably usually always never sometimes actually really literally basically mostly pretty quite kind sort
almost nearly exactly and or but because if when while null none unset same-as last first next current previous
string str int integer bool boolean float number char text varchar nil undefined true false input hash bytes
password passwd pwd pass secret token key pin code
super way far much many more less most least enough again already yet ready done gone here unlimited limited
""".split())
_WORDISH_SUFFIXES = ("ed", "ly", "ing", "able", "ible", "ous", "ful", "less", "ive")
_UNIT = re.compile(
    r"\s*(?:位|个|次|年|月|日|号|天|元|块|角|分|秒|小时|岁|人|遍|字|条|张|台|件|项|周|页|米|斤|公斤|克|%|"
    r"(?:digits?|characters?|chars?|letters?|numbers?|times|tries|attempts|days?|minutes?|mins?|hours?|hrs?|"
    r"seconds?|secs?|years?|months?|weeks?|yuan|rmb|dollars?|bucks|euros?|pounds?|percent|people|pages?|gb|mb|kb|"
    r"px|km|kg|am|pm)\b)", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?:$|[,.;!?)\"”]|\s(?:and|but|so|because|in\s+case|if|though|lol|btw|haha|ok)\b)",
                         re.IGNORECASE)
_TOKEN = re.compile(r"[\x21-\x7e]+")
_QUOTED = re.compile(r"[\"'“‘「『]([^\"'“”‘’「」『』\n]{3,64})[\"'”’」』]")
_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d){7,23}[Xx]?")
#: Digits said one by one: "1 2 3 4", "12 34 56" (voice input, or a code read out). Judged as a code.
_SPACED_DIGITS = re.compile(r"\d{1,4}(?: \d{1,4}){1,11}(?![\d.,:/-]?\d)")
#: Digits in Chinese numerals, as voice input writes a code ("七七三一零", "幺三五七", "两两八八"); not a
#: quantity: no 十 / 百 / 千 / 万 in it and no unit after it ("三四五次", "二〇二四年").
_ZH_DIGIT = "零〇一二三四五六七八九幺两"
_ZH_DIGITS = re.compile(f"[{_ZH_DIGIT}](?:\\s?[{_ZH_DIGIT}]){{2,15}}(?![{_ZH_DIGIT}十百千万亿点])")
_ZH_DIGIT_IDIOMS = frozenset({"三三两两", "七七八八"})  # "in twos and threes", "mostly"
_ZH_UNIT = re.compile(r"\s*(?:[位个次年月日号天元块角分秒岁人遍字条张台件项周页米斤克倍成折]|小时|公斤|毫|多)")
#: A passphrase: three to eight plain words making up the rest of the clause after "password:".
_PHRASE = re.compile(r"[A-Za-z]{2,16}(?: [A-Za-z]{2,16}){2,7}")
#: Words that make a clause after "password:" a remark, not a phrase ("forgot it again", "see the note").
_FUNCTION_WORDS = frozenset("""
a an the my your his her our their its this that these those it me mine yours him them us i you he she we they
is are was were be been am do does did not no yes to of in on at for by from with about as and or but so if then
than there here what which who when where how why all any some same see ask check later again still yet never
""".split())
#: What a password may be for, so that a plain word is its value ("the password for my router is admin";
#: not "the password to my heart is chocolate").
_OWNED_THING = re.compile(r"(?<![A-Za-z])(?:" + _LOCKABLE + r"|accounts?|e-?mails?|mail|gmail|outlook|icloud|netflix|"
                          r"bank|apps?|portal|server|database|vpn|nas|pc|mac|macbook|desktop|network|console)"
                          r"(?![A-Za-z])", re.IGNORECASE)
_WORDS = re.compile(r"[\"'“]?((?:[a-z]{3,10}[ ,]+){5,23}[a-z]{3,10})")
_PAIR = re.compile(r"[\x21-\x2e\x30-\x7e]+\s*/\s*(?P<secret>[\x21-\x7e]+)")  # "user / secret"
_STAND_INS = frozenset({"n/a", "tbd", "tba", "todo", "none", "null", "<none>", "(none)", "-", "--", "?", "???"})
_LEADING = "\"'(<[“‘「"
_TRAILING = ".,;:!?)]}>\"'"


def _wordish(word: str) -> bool:
    """A plain English word that says something about a secret rather than being one."""
    word = word.lower()
    return word in _NOT_VALUES or word.endswith(_WORDISH_SUFFIXES) and not word.endswith("fly")  # a dragonfly is a noun


def _password_ok(value: str, strict: bool, bare_word: bool) -> bool:
    if not 4 <= len(value) <= 64 or "://" in value or value.lower().startswith("www.") or _CODE_LIKE.search(value):
        return False
    if any(ch.isdigit() for ch in value):
        return True
    words = re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)*", value)
    if words is None:  # a symbol in it: "Acme@Guest", "p@ss!"; not "******" or "N/A"
        return any(ch.isalpha() for ch in value) and value.lower() not in _STAND_INS
    if any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value):
        return not strict or "-" not in value  # "BlueFox", not "Well-Known"
    return bare_word and not strict and not any(_wordish(part) for part in value.split("-"))


def _code_ok(value: str) -> bool:
    if " " in value.strip() and _SPACED_DIGITS.fullmatch(value.strip()):
        value = value.replace(" ", "")  # "1 2 3 4": digits read out one by one
    core = value.strip("#*")
    if not core or len(core) > 24 or not re.fullmatch(r"[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*", core):
        return False
    digits = sum(ch.isdigit() for ch in core)
    if re.fullmatch(r"[\d.-]+", core):
        return 3 <= digits <= 12
    return digits >= 2 and len(core) >= 4


def _key_ok(value: str) -> bool:
    if not 8 <= len(value) <= 512 or not re.fullmatch(r"[A-Za-z0-9_\-./+=:~]+", value):
        return False
    if "://" in value or value.startswith(("www.", ".", "/")) or re.search(r"\.(?:env|txt|json|ya?ml|py|toml)$", value) \
            or _CODE_LIKE.search(value):
        return False
    has_letter, has_digit = any(ch.isalpha() for ch in value), any(ch.isdigit() for ch in value)
    return (has_letter and has_digit) or len(value) >= 24


def _id_ok(value: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z]{0,3}\d{6,18}[A-Za-z0-9]?", re.sub(r"[\s-]", "", value)))


def _card_ok(value: str) -> bool:
    return bool(re.fullmatch(r"\d(?:[ -]?\d){11,18}", value))


def _account_ok(value: str) -> bool:
    core = re.sub(r"[\s-]", "", value)
    return bool(re.fullmatch(r"\d{8,24}|[A-Za-z]{2}\d{2}[A-Za-z0-9]{10,30}", core))


_VALUE_CHECKS = {"pair": lambda value: _password_ok(value, True, False), "code": _code_ok, "key": _key_ok, "id": _id_ok, "card": _card_ok, "account": _account_ok}


def _value_at(text: str, at: int, label: _Label) -> tuple[int, int] | None:
    """The span of the value a label's frame leaves at ``at`` (not yet judged)."""
    if label.value == "words":
        match = _WORDS.match(text, at)
        return match.span(1) if match else None
    if label.value in ("card", "account", "id"):
        match = _DIGIT_RUN.match(text, at)
        if match and (label.value != "id" or _id_ok(match.group())):
            return match.span()
    quoted = _QUOTED.match(text, at)
    if quoted and label.value == "password":
        return quoted.span(1)
    if label.value in ("password", "code"):
        spaced = _SPACED_DIGITS.match(text, at)
        if spaced and (spaced.group().count(" ") >= 2 or min(map(len, spaced.group().split())) >= 2):
            return spaced.span()  # "1 2 3 4", "12 34": not only its first digit
    match = (_PAIR if label.value == "pair" else _TOKEN).match(text, at)
    if not match:
        return None
    start, end = match.span("secret" if label.value == "pair" else 0)
    while start < end and text[start] in _LEADING:
        start += 1
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    return (start, end) if end > start else None


def _judge(text: str, span: tuple[int, int], label: _Label, *, bare_word: bool, needs_digit: bool) -> bool:
    """Whether ``text[span]`` is a value of ``label``'s kind (see the module docstring)."""
    value = text[span[0]:span[1]]
    if re.fullmatch(r"[\d.\- ]+", value) and _UNIT.match(text, span[1]):
        return False  # "8 位", "12 characters", "2024年": a length, a count, a date
    if needs_digit and not any(ch.isdigit() for ch in value) and not label.value == "key":
        return False
    if label.value == "words":
        return len(value.replace(",", " ").split()) >= 6
    if label.value == "password":
        return _password_ok(value, label.strict, bare_word)
    return _VALUE_CHECKS[label.value](value)


def _excluded(text: str, start: int, label: _Label) -> bool:
    if not label.not_after:
        return False
    before = text[max(0, start - 16):start]
    pattern = r"(?:" + label.not_after + r")[\s'’-]*(?:s\s+)?$" if label.value != "card" or before.isascii() else \
        r"(?:" + label.not_after + r")\S{0,2}$"
    return bool(re.search(pattern, before, re.IGNORECASE))


def _spoken_digits(text: str, at: int) -> tuple[int, int] | None:
    """Digits in Chinese numerals at ``at`` ("七七三一零"), not a quantity (see ``_ZH_DIGITS``)."""
    found = _ZH_DIGITS.match(text, at)
    if found is None or _ZH_UNIT.match(text, found.end()) or found.group() in _ZH_DIGIT_IDIOMS:
        return None
    return found.span()


def _passphrase(text: str, at: int) -> tuple[int, int] | None:
    """Plain words making up the rest of the clause at ``at`` ("correct horse battery staple"): none a
    function word, at most one a word about secrets ("correct"), and nothing after them in the clause."""
    found = _PHRASE.match(text, at)
    if found is None or not _CLAUSE_END.match(text, found.end()) or re.match(r" [A-Za-z]", text[found.end():]):
        return None
    words = found.group().lower().split()
    if any(word in _FUNCTION_WORDS for word in words) or sum(_wordish(word) for word in words) > 1:
        return None
    return found.span()


def _after(text: str, match: re.Match[str], label: _Label) -> tuple[int, int] | None:
    """The value a label names after itself ("X 是 V", "the X for Y is V", "set the X to V", "X V")."""
    end = match.end()
    before = max(0, match.start() - 24)
    if _EXAMPLE.search(text, before, match.start()) and not (
            _CHANGED_TO.match(text, end) or _TO.match(text, end) and _CHANGE_VERB.search(text, before, match.start())):
        return None  # "the default password is admin123": an example, nobody's secret
    english = match.group().isascii()
    frames = ("zh", "zh_next") if not english else ("en", "en_to", "en_next", "zh", "zh_next")
    for frame in frames:
        found = _FRAMES[frame].match(text, end)
        if found is None:
            continue
        cop = found.group("cop")
        colon = bool(re.fullmatch(r"[\"']?\s*[:=]\s*", cop))
        if label.colon_only and not colon:
            continue
        if frame == "en_to" and not _CHANGE_VERB.search(text, max(0, match.start() - 40), match.start()):
            continue  # "to" / "as" only after "set / changed the X"
        if frame == "zh" and english and colon:
            continue  # "Password: V" was read by the English frame ("Password: forgot it again" is no value)
        if label.value in ("password", "code") and frame.startswith("zh"):
            spoken = _spoken_digits(text, found.end("cop"))
            if spoken is not None:
                return spoken  # "门锁密码是七七三一零", "银行卡密码 四八二一"
        if label.value == "password" and not label.strict and colon:
            phrase = _passphrase(text, found.end())
            if phrase is not None:
                return phrase  # "password: correct horse battery staple"
        span = _value_at(text, found.end(), label)
        if span is None:
            continue
        cjk = frame == "zh" and found.group("cjk")
        if span[0] > 0 and text[span[0] - 1] in "\"'“‘「『":
            bare = True  # quoted: a value as written, even a plain word
        elif frame == "en":
            # a plain word only ending the clause, and right after the label or after what the password
            # is for: "my password is sunshine.", "the password for my router is admin"; not "the
            # password to my heart is chocolate"
            right_after = found.start("cop") == end or bool(_OWNED_THING.search(text, end, found.start("cop")))
            bare = right_after and not found.group("poss") and bool(_CLAUSE_END.match(text, span[1]))
        else:
            bare = frame == "zh" and not cjk
        if _judge(text, span, label, bare_word=bare, needs_digit=frame.endswith("_next") or bool(cjk)):
            return span
    return None


def _before(text: str, match: re.Match[str], label: _Label) -> tuple[int, int] | None:
    """The value a label names before itself ("V is my X", "use V as the X", "V 是我的 X")."""
    start = match.start()
    window = text[max(0, start - 80):start]
    offset = start - len(window)
    chinese = not match.group().isascii() or not window[-12:].isascii()
    found = (_ZH_BEFORE if chinese else _EN_BEFORE).search(window)
    if found is None:
        return None
    if (chinese and not _ZH_LABEL_END.match(text, match.end())) or \
            (not chinese and _EN_LABEL_GOES_ON.match(text, match.end())):
        return None  # "1Password is my password manager": the label goes on
    mods = found.group("mods") if found.group("mods") is not None else found.groupdict().get("umods") or ""
    if _GENERIC.search(mods):
        return None  # "123456 is the most common password"
    group = "u" if found.group("u") is not None else "v"
    span = _value_at(window, found.start(group), label)
    if span is None or span[1] != found.end(group) and window[span[1]:found.end(group)].strip(_TRAILING):
        return None
    lead = found.groupdict().get("lead")
    bare = chinese or group == "u" or lead is not None and not _wordish(window[span[0]:span[1]])
    if not _judge(window, span, label, bare_word=bare, needs_digit=False):
        return None
    return span[0] + offset, span[1] + offset


# Where an English label may be: its pattern (an alternation of dozens of forms, slow over long
# texts) only runs around a word that every English label holds.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_HEAD_WORDS = frozenset("""
pass password passwords passcode passcodes passphrase passwd pw pwd pword pin pins code codes keycode keycodes combo
combos combination combinations key keys token tokens secret secrets card account iban ssn id identity security
insurance license licence tax medicare cvv cvv2 cvc cvc2 csc otp login logins log sign signin credential credentials
creds phrase words mnemonic wi wifi passport
""".split())
_HEAD_PARTS = re.compile(r"pass|pwd|key|token|secret|code|card")  # in a longer word: AccessKeyId, DBPASSWORD
_REACH = 48  # characters a label reaches before its head word, and after it (its look-ahead)


def _label_regions(text: str) -> list[tuple[int, int]]:
    """Stretches of ``text`` that may hold an English label, merged, in order."""
    heads = []
    for m in _WORD.finditer(text):
        word = m.group().lower()
        if word in _HEAD_WORDS or len(word) > 7 and _HEAD_PARTS.search(word):
            heads.append(m.span())
    regions: list[tuple[int, int]] = []
    for start, end in sorted(heads):
        start, end = max(0, start - _REACH), end + _REACH
        if regions and start <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(regions[-1][1], end))
        else:
            regions.append((start, end))
    return regions


def _which(text: str, match: re.Match[str], labels: list[tuple[re.Pattern[str], _Label]]) -> _Label:
    """The label an alternation matched: the first of its forms that matches there as long."""
    for pattern, label in labels:
        one = pattern.match(text, match.start())
        if one is not None and one.end() == match.end():
            return label
    raise AssertionError(f"no label form matches {match.group()!r}")  # the alternation is made of them


def _labels(text: str) -> list[tuple[re.Match[str], _Label]]:
    """Every label in ``text`` (Chinese and English), in order, none overlapping."""
    found = [(m, _which(text, m, _ZH_LABELS)) for m in _ZH_LABEL_RE.finditer(text)]
    for start, end in _label_regions(text):
        found += [(m, _which(text, m, _EN_LABELS)) for m in _EN_LABEL_RE.finditer(text, start, end)]
    found.sort(key=lambda pair: pair[0].start())
    out: list[tuple[re.Match[str], _Label]] = []
    for match, label in found:
        if not out or match.start() >= out[-1][0].end():
            out.append((match, label))
    return out


def _labelled(text: str) -> list[Secret]:
    found = []
    for match, label in _labels(text):
        if _excluded(text, match.start(), label):
            continue
        span = _after(text, match, label) or _before(text, match, label)
        if span is None and label.alone:
            span = _after(text, match, _Label(label.kind, "password"))
        if span is not None:
            found.append(Secret(label.kind, *span))
    return found


# ── the two uses ────────────────────────────────────────────────────

#: Full-width ASCII (ｐａｓｓ１２３, ：) read as ASCII, one character for one so positions hold; not the
#: full-width punctuation that ends a Chinese clause (，；！？（）), which must keep ending a value.
_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")
_FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F) if chr(code) not in "，；！？（）"} | {0x3000: 0x20}


def find_secrets(text: str) -> list[Secret]:
    """Every secret value in ``text``, in order, none overlapping (see the module docstring)."""
    if not text:
        return []
    folded = text.translate(_FOLD) if _FULL_WIDTH.search(text) else text
    spans = sorted(_shapes(folded) + _labelled(folded), key=lambda s: (s.start, -s.end))
    out: list[Secret] = []
    for secret in spans:
        if out and secret.start < out[-1].end:
            if secret.end > out[-1].end:
                out[-1] = Secret(out[-1].kind, out[-1].start, secret.end)
            continue
        out.append(secret)
    return out


def find_secret(text: str) -> str | None:
    """The kind of the first secret ``text`` holds (for a refusal's wording), or ``None``."""
    found = find_secrets(text)
    return found[0].kind if found else None


def redact_secrets(text: str) -> tuple[str, int]:
    """``text`` with every secret value replaced by its :func:`placeholder`, and how many were hidden:
    for text a model must not see (a turn the writer takes, whichever way it came)."""
    found = find_secrets(text)
    pieces, at = [], 0
    for secret in found:
        pieces += [text[at:secret.start], placeholder(secret.kind)]
        at = secret.end
    return "".join(pieces) + text[at:], len(found)
