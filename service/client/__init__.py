"""The Python client: `Client` (the HTTP API, signing orders) and the `wif` command line
(`service.client.cli:app`, also `python -m service.client`)."""

from service.client.api import Client, ProblemError, ServerEvent, envelope, join_body, signed

__all__ = ["Client", "ProblemError", "ServerEvent", "envelope", "join_body", "signed"]
