"""The WiF referee service.

`__version__` is the one place the version is written: the package metadata, the
OpenAPI document's `info.version` and the CLI read it, and `CHANGELOG.md` opens
with it (a test checks).
"""

__version__ = "0.5.0"
