"""Writer tools beyond the six CRUD tools of ``memory_tools``, one module each (named after its tool).

A module here that registers a plan on ``memory_tools.MEMORY_TOOLS`` (``@MEMORY_TOOLS.tool``, and
``@MEMORY_TOOLS.landed(name)`` for the writer's resume) is a tool of the writer: ``memory_tools``
imports every module of this package when it is first imported, in the order of their names, after
its own six. Nothing else is edited for a new tool: the agent is offered it (``tools``), a tool call
the model writes as text is recognised (``text_calls``), the runner applies every rule to its plan
(the don't-remember list, locked memories, review mode: a kind nobody declared is a change, see
``memory/kinds.py``) and the review inbox plans a held call of it again on approval (``proposals``).
The docstring of the plan is what the model reads about the tool (Chinese, as its prompt).
"""
