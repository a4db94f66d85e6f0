"""General-knowledge questions: "香菜的学名是什么" asks about the world, not about the person.

Such a question often shares one word with a memory ("小周不吃香菜"), and that word alone is
enough for BM25 to recall it. :func:`is_general` spots the question: it is Chinese, carries a
knowledge or how-to cue (学名, 区别, 有效期, 一般, 怎么 + a verb…; a fixed list below) and refers neither to the user nor
to the conversation (我, 你, 记得, 上次…). For such a question a memory is recalled only when its
matched words account for most of the question (:func:`coverage`): "美式咖啡和拿铁有什么不同"
still finds "小周早餐喝美式咖啡", "咖啡因的半衰期是多久" no longer does.

English questions are left alone (LoCoMo's "What did Caroline research?" names no "I" either, and
asks about a person all the same).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from . import tokenize as tok
from .postings import Postings, term_key

if TYPE_CHECKING:
    from .lexicon import Lexicon, Query

# Cues of a question about the world: names, definitions, comparisons, norms. Kept short on
# purpose: "有几个" or "是什么" also ask about the user's own people and plans.
_KNOWLEDGE_CUES = re.compile(
    r"为什么会|学名|鼻祖|发明|海拔|有效期|半衰期|区别|不同|一回事|怎么拼|怎么读|英文|定义|原理|一般|通常"
    r"|一共|总共|有哪些|有多[远高长宽深重]|多远|多高"  # facts and quantities ("西湖十景有哪些")
    r"|怎么(?![样办了回])"  # how-to ("吉他怎么调音"); not status or advice (怎么样, 怎么办)
)
# A reference to the user, to Sonetto, to someone in the user's life or to something said before:
# the question is personal ("她一般几点起床", "妈妈通常几点睡" ask about the user's people).
_PERSONAL_CUES = re.compile(
    r"我|咱|俺|自己|本人|你|记得|上次|之前|以前|那次|那天|那个|最近"
    r"|(?<![吉其])他|她|家里|家人|爸|妈|爷爷|奶奶|姥姥|姥爷|外公|外婆|哥哥|姐姐|弟弟|妹妹|老婆|老公|媳妇"
    r"|丈夫|妻子|孩子|儿子|女儿|宝宝|朋友|同事|同学|室友|老师|老板|领导|男友|女友")  # not 吉他, 牛奶, 哥伦比亚
SUBJECT_LENGTHS = (2, 3, 4)  # a memory's subject: its first characters ("阿宁养了两只猫" is about 阿宁)


def names_subject(text: str, description: str) -> bool:
    """Whether the question names the memory's subject (its opening 2-4 characters, not "用户"):
    "阿宁一共养了几只猫" asks about 阿宁, whom "阿宁养了两只猫…" is about: that is personal."""
    return any(len(head := description[:n]) == n and head != "用户" and all(tok.is_cjk(ch) for ch in head)
               and head in text for n in SUBJECT_LENGTHS)
_CJK = re.compile(f"[{tok.CJK_CHARS}]")

MIN_COVERAGE = 0.6  # share of the question's characters a recalled memory must account for


def is_general(text: str, has_dates: bool = False) -> bool:
    """True for a Chinese question about the world rather than about the user (see the module)."""
    if has_dates or not text or len(_CJK.findall(text)) * 2 < len(text):
        return False
    return bool(_KNOWLEDGE_CUES.search(text)) and not _PERSONAL_CUES.search(text)


def _question_chars(text: str) -> set[str]:
    return {ch for ch in text if tok.is_cjk(ch) and ch not in tok.STOP_CHARS and ch not in tok.STOP_WORDS}


def coverage(postings: Postings, lexicon: "Lexicon", query: "Query", slots: list[int],
             filler: frozenset[str] = frozenset()) -> dict[int, float] | None:
    """Per slot: the share of the question's characters (function characters aside) that belong
    to query words the memory matches, literally or through the lexicon. None when the question
    has at most one such character (nothing to weigh)."""
    chars = _question_chars(query.text)
    if len(chars) <= 1 or not slots:
        return None
    content = [w for w in [*query.words, *query.unknown]
               if w not in tok.STOP_WORDS and w not in tok.WEAK_WORDS and w not in filler]
    picked = np.array(slots, dtype=np.int64)
    covered: list[set[str]] = [set() for _ in slots]
    for word in content:
        terms = set(tok.term_forms(word))
        if len(word) > 2 or word in query.unknown:
            terms.update(tok.BIGRAM + pair for pair in tok.bigrams(word))
        for other in lexicon.expand([word]):
            terms.update(tok.term_forms(other))
        hit = postings.score({term_key(t): 1.0 for t in terms})[picked] > 0
        for i in np.flatnonzero(hit):
            covered[i].update(word)
    return {slot: len(got & chars) / len(chars) for slot, got in zip(slots, covered, strict=True)}
