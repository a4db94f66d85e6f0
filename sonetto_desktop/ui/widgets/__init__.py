"""Small generic Qt helpers: icons, awaitable dialogs, deferred calls, labels and layouts."""
