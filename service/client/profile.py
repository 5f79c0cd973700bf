"""The client's profile: a JSON file that remembers, per game, where the server is, who
we are in it (player id, token, side, private key file), the next order `seq` and the
signed order still awaiting the server's answer (`pending`, sent again as it is).

    {"version": 1, "current": "<game id>",
     "games": {"<game id>": {"base_url": "...", "game": "...", "name": "...",
                             "player": "...", "token": "...", "side": "allies",
                             "key": "/abs/path/key", "seq": 8,
                             "gm_token": "...", "join_codes": {...},
                             "pending": "{\"order\": ..., \"signature\": ...}"}}}

Every change happens under an exclusive lock (a `.lock` file next to the profile,
`flock` where available) and is written by an atomic rename, so two commands running
at once never hand out the same `seq`, and a crash never leaves half a file. The file
holds bearer tokens, so it is created 0600.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: atomic rename only
    fcntl = None  # type: ignore[assignment]

__all__ = ["DEFAULT_PATH", "Profile", "ProfileError"]

DEFAULT_PATH = Path(".wif") / "profile.json"
FORMAT_VERSION = 1


class ProfileError(Exception):
    """The profile cannot answer (no such game, no seat, unreadable file)."""


class Profile:
    def __init__(self, path: Path | str = DEFAULT_PATH) -> None:
        self.path = Path(path)

    # ------------------------------------------------------------------ file access

    def _empty(self) -> dict[str, Any]:
        return {"version": FORMAT_VERSION, "current": None, "games": {}}

    def load(self) -> dict[str, Any]:
        """The profile's contents (an empty profile if the file does not exist)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return self._empty()
        except OSError as error:
            raise ProfileError(f"cannot read profile {self.path}: {error}") from None
        try:
            data = json.loads(text)
        except ValueError as error:
            raise ProfileError(f"profile {self.path} is not JSON: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("games"), dict):
            raise ProfileError(f"profile {self.path} is not a wif profile")
        return data

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _write(self, data: Mapping[str, object]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp",
                                   dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """Read, let the caller change, write back atomically, all under the lock."""
        with self._locked():
            data = self.load()
            yield data
            self._write(data)

    # ------------------------------------------------------------------ games

    def game(self, game_id: str | None = None) -> dict[str, Any]:
        """The entry of `game_id`, or of the current game."""
        data = self.load()
        wanted = game_id or data.get("current")
        if not wanted:
            raise ProfileError(f"no game in profile {self.path}: create or join one first")
        entry = data["games"].get(wanted)
        if entry is None:
            known = ", ".join(sorted(data["games"])) or "none"
            raise ProfileError(f"game {wanted} is not in profile {self.path} (known: {known})")
        result: dict[str, Any] = dict(entry)
        return result

    def remember(self, game_id: str, make_current: bool = True, **fields: object) -> dict[str, Any]:
        """Create or update a game's entry; the new entry."""
        with self.edit() as data:
            entry = data["games"].setdefault(game_id, {"game": game_id, "seq": 1})
            entry.update({k: v for k, v in fields.items() if v is not None})
            if make_current:
                data["current"] = game_id
            result: dict[str, Any] = dict(entry)
        return result

    def use(self, game_id: str) -> None:
        with self.edit() as data:
            if game_id not in data["games"]:
                raise ProfileError(f"game {game_id} is not in profile {self.path}")
            data["current"] = game_id

    def receipts_file(self, game_id: str) -> Path:
        """Where the server's receipts for `game_id` are kept: one JSON per line, beside
        the profile (`<profile>.receipts/<game>.jsonl`)."""
        return self.path.with_name(self.path.stem + ".receipts") / f"{game_id}.jsonl"

    def keep_receipt(self, game_id: str, receipt: Mapping[str, object]) -> None:
        """Keep a signed receipt: with an export, it proves an order the server took or
        refused (`wif verify --receipts`)."""
        path = self.receipts_file(game_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(dict(receipt), separators=(",", ":")) + "\n")

    def receipts(self, game_id: str) -> list[dict[str, Any]]:
        path = self.receipts_file(game_id)
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]

    def take_seq(self, game_id: str) -> int:
        """The next order seq for `game_id`, counted up and saved before it is used, so no
        two orders (even from commands running at once) ever share one."""
        with self.edit() as data:
            entry = data["games"].get(game_id)
            if entry is None:
                raise ProfileError(f"game {game_id} is not in profile {self.path}")
            seq = int(entry.get("seq", 1))
            entry["seq"] = seq + 1
        return seq

    def pending(self, game_id: str) -> bytes | None:
        """The signed order sent to `game_id` that got no answer yet (a timeout, a lost
        connection, a 5xx), as the bytes that were sent: they go again as they are,
        never signed anew."""
        found = self.game(game_id).get("pending")
        return found.encode() if isinstance(found, str) else None

    def set_pending(self, game_id: str, sent: bytes | None) -> None:
        """Keep `sent` as the order awaiting an answer (None: it was answered)."""
        with self.edit() as data:
            entry = data["games"].get(game_id)
            if entry is None:
                raise ProfileError(f"game {game_id} is not in profile {self.path}")
            if sent is None:
                entry.pop("pending", None)
            else:
                entry["pending"] = sent.decode()
