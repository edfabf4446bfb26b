"""An offline ADK model for the tests: it records every request and answers "ok"."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


class RecordingModel(BaseLlm):
    """Answers every request with "ok" and keeps the requests (``requests``)."""

    model: str = "recording"
    requests: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))

    def prompt(self, index: int = -1) -> str:
        """Everything the model was sent in a request: system instruction and contents."""
        request = self.requests[index]
        system = request.config.system_instruction if request.config else None
        texts = [str(system or "")]
        texts += [p.text for c in request.contents for p in (c.parts or []) if p.text]
        return "\n".join(texts)


def user_says(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])
