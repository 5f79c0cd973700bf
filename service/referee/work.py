"""Units of work for the entry points (the API, the command line, the background
clock): `Transactions` opens one per request; use cases take the `UnitOfWork`."""

from service.store.uow import Transactions, UnitOfWork

__all__ = ["Transactions", "UnitOfWork"]
