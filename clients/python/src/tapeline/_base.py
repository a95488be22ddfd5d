"""Shared pieces of the generated modules: the model base, the operation spec and pages."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Model(BaseModel):
    """Base of every generated model. Unknown fields are kept (a field the service adds later does not break this client)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class OperationSpec(NamedTuple):
    method: str
    path: str
    paginated: bool
    #: The type of the success envelope's ``data`` (``bytes`` for a file).
    data: Any
    #: The answer is a file (an export's), not the JSON envelope: its bytes are the result.
    binary: bool = False


class DownloadedFile(NamedTuple):
    """A file an operation streamed to disk (``download_export_file_to``)."""

    path: Path
    #: Bytes written.
    bytes: int
    #: SHA-256 of those bytes, lowercase hex (an export's manifest lists each file's).
    sha256: str


@dataclass
class Page(Generic[T]):
    """One page of a list operation; ``next_cursor`` goes into the same call as ``cursor=`` for the next one."""

    data: list[T]
    limit: int
    has_more: bool
    next_cursor: str | None
    _fetch_next: Any = field(default=None, repr=False, compare=False)

    def __iter__(self):  # type: ignore[override]
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def next_page(self) -> "Page[T] | None":
        return self._fetch_next(self.next_cursor) if self.has_more and self.next_cursor and self._fetch_next else None


@dataclass
class AsyncPage(Generic[T]):
    """One page of a list operation (async client)."""

    data: list[T]
    limit: int
    has_more: bool
    next_cursor: str | None
    _fetch_next: Any = field(default=None, repr=False, compare=False)

    def __iter__(self):  # type: ignore[override]
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    async def next_page(self) -> "AsyncPage[T] | None":
        return await self._fetch_next(self.next_cursor) if self.has_more and self.next_cursor and self._fetch_next else None
