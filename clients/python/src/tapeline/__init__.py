"""tapeline: Python SDK for the tapeline prediction-market data API.

    from tapeline import Tapeline
    with Tapeline() as client:                      # TAPELINE_API_KEY, TAPELINE_BASE_URL from the environment
        for market in client.list_markets(status="active", sort="volume", limit=10):
            print(market.title, market.yes_price)
"""
from . import models
from ._base import AsyncPage, Model, Page
from ._operations import API_VERSION, OPERATIONS, STREAM_FILTERS, StreamChannel
from .client import DEFAULT_BASE_URL, AsyncTapeline, Tapeline
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    MethodNotAllowedError,
    NotFoundError,
    PaymentRequiredError,
    PermissionDeniedError,
    RateLimitError,
    TapelineError,
)
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
