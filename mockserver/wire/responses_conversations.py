"""Conversations API requests: create, update, and adding items."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeAlias

from pydantic import Field

from mockserver.wire.responses_items import ResponseInputItem
from mockserver.wire.validation import WireModel, check_metadata_keys, validate_model

__all__ = [
    "ConversationCreateParams",
    "ConversationUpdateParams",
    "ItemCreateParams",
    "parse_conversation_create",
    "parse_conversation_update",
    "parse_item_create",
]

_Metadata: TypeAlias = Annotated[
    dict[str, Annotated[str, Field(max_length=512)]], Field(max_length=16)
]


class ConversationCreateParams(WireModel):
    items: Annotated[list[ResponseInputItem], Field(max_length=20)] | None = None
    metadata: _Metadata | None = None


class ConversationUpdateParams(WireModel):
    metadata: _Metadata | None


class ItemCreateParams(WireModel):
    items: Annotated[list[ResponseInputItem], Field(max_length=20)]


def parse_conversation_create(data: Mapping[str, Any]) -> ConversationCreateParams:
    params = validate_model(ConversationCreateParams, data)
    check_metadata_keys(params.metadata)
    return params


def parse_conversation_update(data: Mapping[str, Any]) -> ConversationUpdateParams:
    params = validate_model(ConversationUpdateParams, data)
    check_metadata_keys(params.metadata)
    return params


def parse_item_create(data: Mapping[str, Any]) -> ItemCreateParams:
    return validate_model(ItemCreateParams, data)
