"""Language detection and BM25 tokenization shared by loading, ingestion and retrieval."""

from __future__ import annotations

import logging
import re
from functools import cache

CJK_CHARS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{CJK_CHARS}]")
_LATIN_RE = re.compile(r"[A-Za-z]")
_TOKEN_RE = re.compile(r"[0-9a-z][0-9a-z.+\-_/]*[0-9a-z+]|[0-9a-z]")
_HAS_CJK_RE = re.compile(f"[{CJK_CHARS}]")
_LATIN_SPLIT_RE = re.compile(r"[^0-9A-Za-z.+\-_/]+")

# Function words that carry no topic; dropping them keeps BM25 from matching on "的" or "the".
_STOPWORD_TEXT = """
    a an and are as at be been but by can could do does did for from has have how i if in into is it its
    me my of on or our should so than that the their them then there these they this to too use used
    using was we what when where which who why will with would you your vs per about any also just more
    的 了 是 在 和 与 或 吗 呢 吧 啊 呀 么 嘛 就 都 也 还 又 而 及 以 对 把 被 让 给 从 到 向 为 用 跟
    我 你 他 她 它 我们 你们 他们 这 那 这个 那个 哪个 什么 怎么 怎么样 如何 多少 能 能不能 可以 可不可以
    要 需要 会 有 没有 没 不 一个 一张 一下 个 张 上 下 中 里 之 其 得 地 着 过 很 最 更 比 等 如果 那么
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def count_cjk(text: str) -> int:
    """Number of CJK ideographs in `text`."""
    return len(_CJK_RE.findall(text))


def detect_lang(text: str) -> str:
    """'zh' when Chinese characters make up a real share of the text, else 'en'."""
    cjk = count_cjk(text)
    latin = len(_LATIN_RE.findall(text))
    # One Chinese character carries about as much as three Latin letters.
    return "zh" if cjk and cjk * 3 >= latin * 0.5 else "en"


@cache
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def add_words(words: list[str]) -> None:
    """Teach the Chinese segmenter domain words (显存, 张量并行) so they stay one token."""
    jb = _jieba()
    for word in words:
        if _HAS_CJK_RE.search(word):
            jb.add_word(word, freq=20000)


def _normalize_latin(token: str) -> str:
    """Light English normalization: lowercase, drop plural -s/-es ("GPUs" -> "gpu", "cards" -> "card")."""
    if len(token) > 3 and token.isalpha():
        if token.endswith("ies") and len(token) > 4:
            return token[:-3] + "y"
        if token.endswith("sses") or token.endswith("ches") or token.endswith("shes"):
            return token[:-2]
        if token.endswith("s") and not token.endswith(("ss", "us", "is")):
            return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """BM25 tokens: jieba search-mode words for Chinese, normalized words and numbers for everything else."""
    tokens: list[str] = []
    # jieba also splits the Latin runs of mixed text at spaces and punctuation.
    pieces = _jieba().lcut_for_search(text) if _HAS_CJK_RE.search(text) else _LATIN_SPLIT_RE.split(text)
    for piece in pieces:
        piece = piece.strip().lower()
        if not piece:
            continue
        if _HAS_CJK_RE.search(piece):
            if piece not in STOPWORDS:
                tokens.append(piece)
            continue
        for tok in _TOKEN_RE.findall(piece):
            tok = _normalize_latin(tok.rstrip(".-"))
            if tok and tok not in STOPWORDS:
                tokens.append(tok)
    return tokens
