"""``sonetto mcp``: the memories for other AI apps (Claude Desktop, Cursor, Cherry Studio…) through the
Model Context Protocol, a front end like ``cli.py`` over the same ``AppServices``.

- ``entry.py``    the command (stdio, or streamable HTTP on 127.0.0.1 with a bearer token)
- ``access.py``   who may do what: on/off, read-only, the allowed clients, the ``mcp:<client>`` actor,
                  who calls (``Caller``: a name and the credential it came with)
- ``names.py``    a client's name as shown and matched
- ``quota.py``    how much a caller may add, change and hand over, per credential
- ``tools.py``    the tools (search, list, add, update, delete, remember a conversation)
- ``resources.py`` read-only views: ``memory://themes``, ``memory://theme/{name}``
- ``http_auth.py`` the bearer tokens (shared and per app) and the loopback check of the HTTP transport
- ``app_tokens.py`` one token per app
- ``http_limits.py`` the HTTP transport's header timeout and its queue of connections beyond the cap
- ``snippets.py`` the configuration other apps need (shown in settings and the README)

Every change is an operation value (``ops.py``) run by ``AppServices.run`` as ``mcp:<client name>`` (the
name the client sent in the MCP handshake), as the window's and the command line's are: it is in the history, on the change channel (a running app's wall shows it live)
and undoable like any other; locked memories and the don't-remember list apply.
"""
