"""boto3's ``bedrock-runtime`` client aimed at a test server, in a namespace of its own (the
access key id of its SigV4 signature names it)."""

from __future__ import annotations

import hashlib
from typing import Any

import boto3
from botocore.config import Config

__all__ = ["access_key_for", "bedrock_client"]


def access_key_for(name: str) -> str:
    """An access key id of AWS's look, one per test (a test's id has ``/`` and ``:``, which a
    SigV4 credential cannot carry)."""
    return "AKIA" + hashlib.blake2b(name.encode(), digest_size=8).hexdigest().upper()


def bedrock_client(url: str, access_key: str, *, retries: int = 1, **config: Any) -> Any:
    """boto3's client for ``url``; ``retries``: its total attempts (standard mode)."""
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id=access_key,
        aws_secret_access_key="mockserver-secret",
        config=Config(
            retries={"mode": "standard", "total_max_attempts": retries},
            read_timeout=10,
            **config,
        ),
    )
