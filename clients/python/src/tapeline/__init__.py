"""tapeline: Python SDK for the tapeline prediction-market data API.

    from tapeline import Tapeline
    with Tapeline() as client:                      # TAPELINE_API_KEY, TAPELINE_BASE_URL from the environment
        for market in client.list_markets(status="active", sort="volume", limit=10):
            print(market.title, market.yes_price)
"""
from . import _operations, models
from ._base import AsyncPage, DownloadedFile, Model, Page
from ._operations import *  # noqa: F403  the request models (CreateExportFilters, ...): _operations.__all__, generated
from ._operations import API_VERSION, OPERATIONS, STREAM_FILTERS, StreamChannel
from .client import DEFAULT_BASE_URL, AsyncTapeline, Tapeline
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    ExportDownloadError,
    InternalServerError,
    MethodNotAllowedError,
    NotFoundError,
    PaymentRequiredError,
    PermissionDeniedError,
    RateLimitError,
    TapelineError,
)
from .exports import DownloadedExport
from .stream import AsyncStream, Stream, StreamError
from .webhooks import WebhookVerificationError, construct_event, verify

__version__ = API_VERSION
__all__ = [
    "API_VERSION",
    "OPERATIONS",
    "STREAM_FILTERS",
    "StreamChannel",
    "DEFAULT_BASE_URL",
    "APIConnectionError",
    "APIError",
    "AsyncPage",
    "AsyncStream",
    "AsyncTapeline",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DownloadedExport",
    "DownloadedFile",
    "ExportDownloadError",
    "InternalServerError",
    "MethodNotAllowedError",
    "Model",
    "NotFoundError",
    "Page",
    "PaymentRequiredError",
    "PermissionDeniedError",
    "RateLimitError",
    "Stream",
    "StreamError",
    "Tapeline",
    "TapelineError",
    "WebhookVerificationError",
    "construct_event",
    "models",
    "verify",
]
__all__ += _operations.__all__
