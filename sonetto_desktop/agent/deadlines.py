"""Default deadlines of a streamed reply (seconds; settings ``first_token_timeout`` and
``stream_idle_timeout``). Enforced by ``stall_guard.StallGuard``; kept apart so the chat engine
reads them without importing LangChain (which ``stall_guard`` needs)."""

DEFAULT_FIRST_TOKEN_TIMEOUT = 30.0
DEFAULT_IDLE_TIMEOUT = 30.0
