"""redaction: the log filter hides a registered key everywhere a record can carry it."""

from __future__ import annotations

import io
import logging

import pytest

from sonetto_desktop.redaction import (
    SecretRedactingFilter,
    install_log_redaction,
    register_secret,
    scrub,
)

KEY = "Zq7-private-token-55501"


@pytest.fixture
def logger():
    """A private logger with one stream handler (the root logger is pytest's)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log = logging.getLogger(f"redaction-test-{id(stream)}")
    log.propagate = False
    log.setLevel(logging.DEBUG)
    log.addHandler(handler)
    log.stream = stream  # type: ignore[attr-defined]
    yield log
    log.removeHandler(handler)


def test_a_registered_key_is_hidden_in_messages_arguments_tracebacks_and_stacks(logger):
    redactor = install_log_redaction(logger)
    assert install_log_redaction(logger) is redactor  # installing twice reuses the filter
    logger.debug("plain %s", "text")
    register_secret(KEY, logger)
    logger.debug("callback with args (%r,)", RuntimeError(f"Incorrect API key provided: {KEY}"))
    logger.info(f"f-string {KEY} and %s", "more")
    try:
        raise ValueError(f"server said {KEY}")
    except ValueError:
        logger.exception("failed")
    logger.warning("where", stack_info=True)
    text = logger.stream.getvalue()
    assert KEY not in text
    assert "plain text" in text and "Incorrect API key provided: ***" in text and "server said ***" in text
    assert "Traceback" in text and "Stack (most recent call last)" in text


def test_bearer_tokens_and_key_shaped_words_are_hidden_without_registration():
    assert scrub("Authorization: Bearer abc.def-123') x") == "Authorization: Bearer ***') x"
    assert scrub("key sk-proj-AbC123xyz used") == "key *** used"
    assert scrub("nothing secret here") == "nothing secret here"


def test_short_or_empty_secrets_are_ignored():
    redactor = SecretRedactingFilter(["", "ab", "  "])
    assert redactor.secrets == ()
    redactor.add_secret("longer-secret")
    redactor.add_secret("longer-secret-2")
    assert redactor.secrets == ("longer-secret-2", "longer-secret")  # the longest is hidden first
