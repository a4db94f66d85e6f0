"""What recall takes from the settings: its token budget (and which endpoint decides the automatic
one). No Qt; the services apply it when they build the recall and when the settings change."""

from __future__ import annotations

from ..config.settings import Settings
from ..memory.retrieval.budget import BudgetPolicy


def recall_budget(settings: Settings) -> BudgetPolicy:
    """The listing budget for ``settings``: the set number of tokens, or automatic for the chat
    endpoint (a local server is asked for its context in the background, at the first recall)."""
    return BudgetPolicy(settings.effective_base_url, settings.model.strip(), settings.api_key.strip(),
                        setting=settings.recall_budget_tokens)
