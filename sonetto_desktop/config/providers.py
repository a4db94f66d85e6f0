"""The chat providers offered in 设置 → 模型 (Qt-free data): where each one's OpenAI-compatible
endpoint is, the models to suggest, whether it wants a key, and whether it runs on this computer.

``provider_for(url)`` gives the provider a base URL belongs to (a cloud provider by its host name,
with or without ``/v1``; a local server by its port on this computer), so a settings file written
before the picker opens with its provider shown; ``None`` for any other address ("自定义").
``same_server(a, b)`` says whether two addresses are one server: a key is only ever kept for the
server it was entered for.

Addresses were checked against each provider's documentation (December 2026):

- DeepSeek: api-docs.deepseek.com gives ``https://api.deepseek.com`` and says ``/v1`` may be used
  too for OpenAI compatibility. Its pricing page names ``deepseek-flash`` (DeepSeek-V4.1-Flash) the
  model to use, and ``deepseek-v4-pro``; the old names ``deepseek-chat`` / ``deepseek-reasoner``
  were retired on 2026-07-24 (requests with them fail), so they are not suggested.
- 通义千问: Alibaba Cloud Model Studio (DashScope) compatible mode,
  ``https://dashscope.aliyuncs.com/compatible-mode/v1`` (Beijing); ``dashscope-intl.aliyuncs.com``
  is the international (Singapore) region. ``qwen-turbo`` was taken offline on 2026-10-10 (Alibaba
  Cloud's notice), so it is not suggested.
- OpenAI: ``https://api.openai.com/v1`` (the default base URL of OpenAI's own Python SDK).
- 硅基流动: ``https://api.siliconflow.cn/v1`` (docs.siliconflow.cn quick start);
  ``api.siliconflow.com`` is its international site.
- Moonshot / Kimi: ``https://api.moonshot.cn/v1`` (platform.moonshot.cn API reference, example
  model ``moonshot-v1-8k``); ``api.moonshot.ai`` is its international endpoint.
- 智谱: ``https://open.bigmodel.cn/api/paas/v4`` (docs.bigmodel.cn HTTP API: request address
  ``https://open.bigmodel.cn/api/paas/v4/``); GLM-4-Plus and the free GLM-4-Flash are listed there.
- Ollama: ``http://localhost:11434/v1`` (Ollama's OpenAI-compatibility docs; ``GET /v1/models``
  lists the pulled models; the key is required by clients but ignored).
- LM Studio: ``http://localhost:1234/v1`` (lmstudio.ai OpenAI-compatible endpoints, port 1234 in
  its examples; ``GET /v1/models``).
- llama.cpp: ``llama-server`` listens on 127.0.0.1:8080 by default and serves ``/v1/models``
  (tools/server/README.md); its maintainers announced the default moving to 9931 (pull request
  26508), and the newest README already says 9931, so that port is recognized and looked at too.

Model lists change; they are suggestions (the 测试连接 button lists what a server really has).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["CUSTOM", "PROVIDERS", "Provider", "by_key", "local_providers", "provider_for", "same_server",
           "server_of"]

#: The picker's choice for any other address.
CUSTOM = "custom"


@dataclass(frozen=True)
class Provider:
    """A chat provider: ``name`` its brand (in sentences: "发现本机的 Ollama"), ``zh`` / ``en`` the
    picker's labels, ``base_url`` its OpenAI-compatible endpoint, ``models`` the ones to suggest
    (a local server's are listed from it), ``other_urls`` other addresses of the same provider
    (another region, a newer default port): recognized as it, and looked at for a local server."""

    key: str
    name: str
    zh: str
    en: str
    base_url: str
    models: tuple[str, ...] = ()
    needs_key: bool = True
    local: bool = False
    other_urls: tuple[str, ...] = ()

    def label(self, language: str) -> str:
        """The picker's label in the UI's language ("en", else Chinese)."""
        return self.en if language == "en" else self.zh

    @property
    def urls(self) -> tuple[str, ...]:
        return (self.base_url, *self.other_urls)


PROVIDERS: tuple[Provider, ...] = (
    Provider("deepseek", "DeepSeek", "DeepSeek 深度求索", "DeepSeek", "https://api.deepseek.com/v1",
             ("deepseek-flash", "deepseek-v4-pro")),
    Provider("dashscope", "通义千问", "通义千问（阿里云百炼）", "Qwen (Alibaba Cloud Model Studio)",
             "https://dashscope.aliyuncs.com/compatible-mode/v1", ("qwen-plus", "qwen-max"),
             other_urls=("https://dashscope-intl.aliyuncs.com/compatible-mode/v1",)),
    Provider("siliconflow", "硅基流动", "硅基流动 SiliconFlow", "SiliconFlow", "https://api.siliconflow.cn/v1",
             ("deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct"), other_urls=("https://api.siliconflow.com/v1",)),
    Provider("moonshot", "Kimi", "Moonshot（Kimi）", "Moonshot (Kimi)", "https://api.moonshot.cn/v1",
             ("moonshot-v1-8k", "moonshot-v1-32k"), other_urls=("https://api.moonshot.ai/v1",)),
    Provider("zhipu", "智谱", "智谱 GLM", "Zhipu GLM", "https://open.bigmodel.cn/api/paas/v4",
             ("glm-4-flash", "glm-4-plus")),
    Provider("openai", "OpenAI", "OpenAI", "OpenAI", "https://api.openai.com/v1",
             ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini")),
    Provider("ollama", "Ollama", "Ollama（本机）", "Ollama (this computer)", "http://127.0.0.1:11434/v1",
             needs_key=False, local=True),
    Provider("lm-studio", "LM Studio", "LM Studio（本机）", "LM Studio (this computer)", "http://127.0.0.1:1234/v1",
             needs_key=False, local=True),
    Provider("llama-cpp", "llama.cpp", "llama.cpp（本机）", "llama.cpp (this computer)", "http://127.0.0.1:8080/v1",
             needs_key=False, local=True, other_urls=("http://127.0.0.1:9931/v1",)),
)

_LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


def server_of(url: str) -> tuple[str, int] | None:
    """The server an address names, as (host, port): this computer's names and loopback addresses
    all read "loopback", the port is the scheme's when not given. None: not an http(s) address."""
    try:
        parts = urlsplit((url or "").strip())
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if port is None:
        port = 443 if parts.scheme.lower() == "https" else 80
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        host = "loopback"
    else:
        try:
            if ipaddress.ip_address(host).is_loopback:
                host = "loopback"
        except ValueError:
            pass
    return host, port


def same_server(a: str, b: str) -> bool:
    """Whether two addresses name one server (a key entered for one may be sent to the other)."""
    first = server_of(a)
    return first is not None and first == server_of(b)


def provider_for(url: str, providers: tuple[Provider, ...] | list[Provider] = PROVIDERS) -> Provider | None:
    """The provider ``url`` belongs to: a cloud provider by host name (any port, path or scheme),
    a local server by its port on this computer; None for any other address (or none)."""
    server = server_of(url)
    if server is None:
        return None
    for provider in providers:
        for known in map(server_of, provider.urls):
            if known is None:
                continue
            if provider.local and server == known:
                return provider
            if not provider.local and server[0] == known[0]:
                return provider
    return None


def by_key(key: str, providers: tuple[Provider, ...] | list[Provider] = PROVIDERS) -> Provider | None:
    return next((p for p in providers if p.key == key), None)


def local_providers(providers: tuple[Provider, ...] | list[Provider] = PROVIDERS) -> list[tuple[Provider, str]]:
    """The addresses to look at for a server running on this computer: (provider, base URL) for every
    address of every local provider, in the picker's order."""
    return [(p, url) for p in providers if p.local for url in p.urls]
