"""Typed errors: one class per envelope ``code``; decide on the class (or ``.code``), never on the message."""
from __future__ import annotations

from typing import Optional


class TapelineError(Exception):
    """Base of every error this package raises."""


class APIConnectionError(TapelineError):
    """No usable answer: connection refused or reset, timeout, or a body that is not the envelope."""


class ExportDownloadError(TapelineError):
    """An export could not be downloaded whole (``download_export``): it has not succeeded (its status and
    ``error`` say why), a file is not the one its manifest describes (size or SHA-256; that file is not kept),
    or the manifest names a file outside the folder."""


class APIError(TapelineError):
    """The service answered with its error envelope (or a non-2xx status)."""

    code = "INTERNAL_ERROR"

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[int] = None) -> None:
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        #: Seconds the service asked to wait (429 ``Retry-After``), when it said.
        self.retry_after = retry_after


class BadRequestError(APIError):
    code = "BAD_REQUEST"


class AuthenticationError(APIError):
    code = "UNAUTHORIZED"


class PaymentRequiredError(APIError):
    """Paying (credits or platform tokens) would unlock the call; see ``get_pricing_access()``."""

    code = "PAYMENT_REQUIRED"


class PermissionDeniedError(APIError):
    code = "FORBIDDEN"


class NotFoundError(APIError):
    code = "NOT_FOUND"


class MethodNotAllowedError(APIError):
    code = "METHOD_NOT_ALLOWED"


class ConflictError(APIError):
    code = "CONFLICT"


class RateLimitError(APIError):
    code = "RATE_LIMITED"


class InternalServerError(APIError):
    code = "INTERNAL_ERROR"


ERRORS_BY_CODE: dict[str, type[APIError]] = {
    cls.code: cls
    for cls in (
        BadRequestError,
        AuthenticationError,
        PaymentRequiredError,
        PermissionDeniedError,
        NotFoundError,
        MethodNotAllowedError,
        ConflictError,
        RateLimitError,
        InternalServerError,
    )
}

_CODE_BY_STATUS = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 402: "PAYMENT_REQUIRED", 403: "FORBIDDEN", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 409: "CONFLICT", 429: "RATE_LIMITED"}


def error_for(status: int, code: Optional[str], message: str, retry_after: Optional[int]) -> APIError:
    """The typed error for an answer; a status without an envelope (a proxy's 502) still gets the service's code for it."""
    resolved = code or _CODE_BY_STATUS.get(status) or ("INTERNAL_ERROR" if status >= 500 else "BAD_REQUEST")
    return ERRORS_BY_CODE.get(resolved, APIError)(status, resolved, message, retry_after)
