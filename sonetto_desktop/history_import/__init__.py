"""Bring your history: a person's past chats from other apps (ChatGPT, DeepSeek, Cherry Studio, a
JSON Lines file, Sonetto's own chat export) read, previewed and written into the memories by the
memory writer, as they happened (issue 31). No Qt.

- ``formats``: the registry of formats (one ``HistoryFormat`` each); ``sources`` opens a zip, a folder
  or a file and tells which registered format it holds (``sniff`` tells the built-in JSON ones
  apart); one module per format (``chatgpt``, ``claude``, ``deepseek``, ``cherry``, ``jsonl``,
  ``sonetto_md``) turns it into :class:`~.model.Conversation` s; ``saved_memories`` reads ChatGPT's
  saved-memory list as text.
- ``plan``: conversations -> exchanges -> what to import (dates, selection, the "don't import"
  list, what earlier imports already wrote) -> batches within the writer's budget, with the counts
  and the token/cost estimate (``memory/token_estimate.py``) a dry run and the window's preview show.
- ``ledger``: what was imported (``<store>.imports/``), so a second import of the same file skips it.
- ``runner``: the import itself, through a memory writer of its own with a journal of its own
  (resumable after a kill, pausable), one undoable unit.
"""
