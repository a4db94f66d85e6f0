"""What the app tells the person about work in the background: toasts, the writer's status, the store's
banner and problems at start."""
