"""A memory server that does not answer this computer, in a person's words (no Qt): why a connection
failed (the settings page's test, the window's banner and the command line say it alike, from
``postgres_setup.failure_words``), and why a change is refused while the store is offline (read-only until
the server answers: the wall's 新建, its drags and dialogs, 导入记忆) with what to check."""

from __future__ import annotations

from typing import Any

from ..postgres_setup import failure_words
from .i18n import filled, translate

#: What a failed connection's kind (``postgres_setup.failure_words``) is when waiting does not mend it: the
#: server answers and refuses (the password, who may connect, the database, TLS). The others (unreachable,
#: a timeout, a failure of no known kind) may be a server away for a while.
REFUSALS = frozenset({"auth", "not_allowed", "no_database", "no_user", "no_permission", "tls", "bad_url", "no_driver"})


def failure_reason(kind: str, *values: str) -> str:
    """Why a connection failed, from its kind and values (``postgres_setup.failure_words``), in the UI's
    language: the settings page's test result, the window's banner and the command line say it alike."""

    def said(text: str) -> str:
        return filled(text, *values)

    if kind == "bad_url":
        reason = translate("PostgresPage", "地址有误，应像 postgresql://用户名@服务器:5432/数据库")
    elif kind == "no_driver":
        reason = translate("PostgresPage", "缺少 PostgreSQL 组件：pip install 'sonetto-desktop[postgres]'")
    elif kind == "tls":
        reason = translate("PostgresPage", "TLS 加密连接没有建立：服务器不支持 TLS，或证书不被信任。可以换一个 TLS 设置再试")
    elif kind == "timeout":
        reason = translate("PostgresPage", "服务器在限定时间内没有回答：请检查地址、端口和网络")
    elif kind == "auth":
        reason = translate("PostgresPage", "服务器不接受这个用户名和密码：请检查密码")
    elif kind == "not_allowed":
        reason = translate("PostgresPage", "服务器不允许这台电脑或这个用户连接（看它的 pg_hba.conf 设置，或连接数已满）")
    elif kind == "no_database":
        reason = said(translate("PostgresPage", "服务器上没有名为 %1 的数据库：请先建好它，或改一下地址最后的数据库名"))
    elif kind == "no_user":
        reason = said(translate("PostgresPage", "服务器上没有名为 %1 的用户"))
    elif kind == "no_permission":
        reason = translate("PostgresPage", "这个用户没有读取记忆库的权限")
    elif kind == "unreachable":
        reason = translate("PostgresPage", "连不上服务器：它没有运行，或地址、端口不对")
    else:
        reason = translate("PostgresPage", "连接失败（服务器说的原因见提示）")
    return reason


def refusal_reason(detail: str) -> str | None:
    """Why a server refuses this computer (its failure's text ``detail``), or None when it is away (waiting
    may mend it)."""
    words = failure_words(detail or "")
    return failure_reason(*words).rstrip("。") if words[0] in REFUSALS else None


def changes_refused(status: Any) -> str:
    """Why no memory can be changed now (``status``: the store's ``StoreStatus``; None: a local store),
    or "" when changes are taken. Said up front, before anything is tried."""
    if status is None or status.online:
        return ""
    reason = refusal_reason(status.detail)
    if reason is not None:
        return translate("ServerWords", "记忆服务器拒绝了这台电脑的连接：{0}。在 设置 → 多设备 里改正之前，"
                                        "记忆只能查看，不能新建、修改或删除。").format(reason)
    return translate("ServerWords", "记忆服务器现在连不上，记忆只能查看：它回来后才能新建、修改或删除。"
                                    "请检查服务器是否在运行、网络是否通，以及 设置 → 多设备 里的地址。")


def empty_offline_text(status: Any) -> str:
    """The empty wall's text while the memory server does not answer and this computer has no copy yet."""
    reason = refusal_reason(status.detail)
    if reason is not None:
        return translate("ServerWords", "记忆都在记忆服务器上，它拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正；"
                                        "在那之前，这里显示不了记忆，也不能新建。").format(reason)
    return translate("ServerWords", "记忆都在记忆服务器上，它现在连不上：在它回答之前，这里显示不了记忆，也不能新建。"
                                    "请检查服务器是否在运行、网络是否通，以及 设置 → 多设备 里的地址。")
