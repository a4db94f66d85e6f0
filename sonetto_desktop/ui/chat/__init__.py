"""The chat: sessions, the conversation view, the composer and the controller that drives the chat engine."""
