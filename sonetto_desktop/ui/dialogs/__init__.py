"""The app's dialogs over the memories: edit, merge, history, trash, review inbox, conflicts, the
don't-remember list, import and export."""
