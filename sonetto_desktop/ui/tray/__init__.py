"""The tray icon and the quick chat popup it opens."""
