"""What to tell a person when a local model's context is cutting recall (``budget.ContextNotice``):
one line saying what is cut and what to change on the server. No Qt: the window shows it as a toast."""

from __future__ import annotations

from typing import Any

from .i18n import counted, translate

#: How each local server is named in the line.
SERVER_NAMES = {"ollama": "Ollama", "lm-studio": "LM Studio", "llama.cpp": "llama.cpp"}


def context_notice_text(notice: Any) -> str:
    """The line for ``notice`` (a ``ContextNotice``) in the front end's language."""
    context, wanted = counted(notice.context), str(notice.wanted)  # (the number to type: as it is typed)
    budget = f"{notice.memories or notice.budget:,}"  # in the model's tokens, as its context is counted
    model = notice.model or "?"
    if notice.model_limit:  # (nothing to type: another model to choose)
        return translate("RecallNotices", "本机模型 {0} 最多只读 {1} tokens：回忆每次只能看约 {2} tokens 的记忆，会漏掉不少。"
                                          "换一个上下文更长的模型（{3} 以上）回忆会好很多").format(
            model, context, budget, counted(notice.wanted))
    server = notice.server
    if server == "ollama":
        how = translate("RecallNotices", "在 Ollama 的设置里把 Context length 调到 {0} 以上，或用环境变量 "
                                         "OLLAMA_CONTEXT_LENGTH={0} 启动 ollama serve").format(wanted)
    elif server == "lm-studio":
        how = translate("RecallNotices", "在 LM Studio 加载模型时把 Context Length 调到 {0} 以上").format(wanted)
    elif server == "llama.cpp":
        how = translate("RecallNotices", "启动 llama-server 时加上 -c {0}").format(wanted)
    else:
        how = translate("RecallNotices", "在本机模型服务里把上下文长度调到 {0} 以上").format(wanted)
    return translate("RecallNotices", "本机模型 {0} 的上下文只有 {1} tokens：回忆每次只能看约 {2} tokens 的记忆，会漏掉不少。"
                                      "{3}").format(model, context, budget, how)
