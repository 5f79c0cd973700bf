"""Pure cryptography for the referee: no database, no web framework.

`canonical` (RFC 8785 bytes, SHA-256), `signing` (Ed25519 order signatures),
`tokens` (bearer tokens and join codes), `dice` (verifiable rolls) and `chain`
(the event hash chain). Import from the submodules.
"""
