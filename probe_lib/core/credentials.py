"""What a credential is, by where providers and their SDKs put one, and its removal from what the kit keeps.

Credentials enter the kit inside what a framework sends or says: a captured request's headers and URL, and a
framework's error text (an SDK's "404 for url ...?key=..."). Both are redacted where they enter
(:func:`probe_lib.capture.store.clean_headers` and :func:`path` for a recorded request; :func:`text` for the error
chains of an :class:`~probe_lib.core.outcome.Outcome` and a :class:`~probe_lib.core.outcome.Failure`'s message, as
each is made), so the recordings and measurement files made from them hold none of the credentials named here.
"""

from __future__ import annotations

import re

#: What a redacted value reads as.
MARK = "<redacted>"

#: Header names that carry a credential: ``Authorization`` (OpenAI, Mistral, Cohere, Bedrock's SigV4 signature ...),
#: ``x-api-key`` (Anthropic), ``api-key`` (Azure OpenAI), ``x-goog-api-key`` (Gemini), ``ocp-apim-subscription-key``
#: (Azure API Management), ``x-amz-security-token`` (AWS session credentials), cookies, and the OpenAI account ids.
HEADERS = frozenset(
    "authorization proxy-authorization api-key x-api-key x-goog-api-key ocp-apim-subscription-key x-amz-security-token "
    "cookie set-cookie openai-organization openai-project".split()
)

#: Query parameters that carry a credential: ``key`` (Google's API keys), ``api_key``/``api-key``/``apikey``,
#: ``access_token``/``token`` (OAuth), and the signature parts of an AWS presigned or Azure SAS URL.
QUERY = frozenset(
    "key api_key api-key apikey x-goog-api-key access_token token x-amz-credential x-amz-signature "
    "x-amz-security-token sig signature".split()
)

_QUERY_VALUE = re.compile(
    r"(?<=[?&;])(" + "|".join(re.escape(name) for name in sorted(QUERY)) + r")=[^&#;\s\"'<>]*", re.IGNORECASE
)
_HEADER_LINE = re.compile(
    r"\b(" + "|".join(re.escape(name) for name in sorted(HEADERS)) + r")(\"?\s*[:=]\s*\"?)(?!<redacted>)[^\s\"',}]+"
    r"(?:[ \t]+(?!<redacted>)[^\s\"',}]+)?",
    re.IGNORECASE,
)


def path(raw: str) -> str:
    """A request's path and query as recorded: each credential parameter's value replaced by :data:`MARK`."""
    return _QUERY_VALUE.sub(lambda match: f"{match.group(1)}={MARK}", raw)


def text(message: str) -> str:
    """Free text (a framework's error) with every credential it quotes replaced by :data:`MARK`: a URL's credential
    parameters, and a credential header written out (``Authorization: Bearer sk-...``, ``"x-api-key": "..."``)."""
    message = path(message)
    return _HEADER_LINE.sub(lambda match: f"{match.group(1)}{match.group(2)}{MARK}", message)
