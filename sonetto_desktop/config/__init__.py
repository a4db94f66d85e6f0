"""Settings, secrets and paths. No Qt, no LangChain: every front end reads its configuration here."""
