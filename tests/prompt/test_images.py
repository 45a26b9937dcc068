"""Image inputs cost tokens as OpenAI documents: 85 at low detail, else 85 + 170 per tile."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from mockserver.prompt.chat import prompt_from_chat
from mockserver.prompt.images import image_size, image_tokens
from mockserver.prompt.responses import input_items, prompt_from_responses
from mockserver.reply.generate import count_prompt_tokens


def png(width: int, height: int) -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(data).decode()


def data_url(kind: str, data: bytes) -> str:
    return f"data:image/{kind};base64," + base64.b64encode(data).decode()


def test_sizes_are_read_from_png_jpeg_gif_and_webp_headers() -> None:
    jpeg = (
        b"\xff\xd8" + b"\xff\xe0\x00\x04ab" + b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", 300, 400)
    )
    gif = b"GIF89a" + struct.pack("<HH", 640, 480)
    webp = (
        b"RIFF\x00\x00\x00\x00WEBPVP8X"
        + b"\x00" * 8
        + (99).to_bytes(3, "little")
        + (49).to_bytes(3, "little")
    )
    assert image_size(png(1920, 1080)) == (1920, 1080)
    assert image_size(data_url("jpeg", jpeg + b"\x00" * 8)) == (400, 300)
    assert image_size(data_url("gif", gif)) == (640, 480)
    assert image_size(data_url("webp", webp)) == (100, 50)
    assert image_size("https://example.com/cat.png") is None


@pytest.mark.parametrize(
    ("url", "detail", "tokens"),
    [
        (png(4096, 4096), "low", 85),
        (png(1024, 1024), "high", 765),  # 768 x 768: 4 tiles
        (png(2048, 4096), "high", 1105),  # 1024 x 2048 → 768 x 1536: 2 x 3 tiles
        (png(512, 512), "auto", 255),  # one tile
        ("https://example.com/cat.png", "auto", 765),  # size unknown: 1024 x 1024
    ],
)
def test_the_documented_costs(url: str, detail: str, tokens: int) -> None:
    assert image_tokens(url, detail) == tokens


def test_an_image_adds_its_cost_to_the_prompt() -> None:
    def prompt(parts: list[dict[str, object]]) -> int:
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": parts}]}
        return count_prompt_tokens(prompt_from_chat(body, headers={}))

    text = {"type": "text", "text": "What is in this picture?"}
    image = {"type": "image_url", "image_url": {"url": png(512, 512), "detail": "high"}}
    assert prompt([text, image]) - prompt([text]) == 255


def test_a_responses_input_image_costs_the_same() -> None:
    def prompt(parts: list[dict[str, object]]) -> int:
        body = {"model": "gpt-4o", "input": [{"role": "user", "content": parts}]}
        made = prompt_from_responses(body, items=input_items(body), headers={})
        return count_prompt_tokens(made)

    text = {"type": "input_text", "text": "What is in this picture?"}
    image = {"type": "input_image", "image_url": png(512, 512), "detail": "low"}
    assert prompt([text, image]) - prompt([text]) == 85
