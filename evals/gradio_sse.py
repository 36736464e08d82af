"""A lean client for one Gradio session: the queue protocol a browser speaks (POST queue/join, then the
session's server-sent events), for load tests.

The load test runs its 20 sessions on the same 2-core machine as the app, so the client's CPU is taken
from the server. `gradio_client` spends ~120 ms of CPU per chat turn (a new HTTP client per request,
threads that poll every 50 ms, status objects per message) — as much as the app itself — which would
measure the load generator rather than the app. This client keeps one keep-alive connection per session
and parses the event stream directly; what the server does is the same for both clients. The API tests
use `gradio_client`, so the protocol is also checked with the official client.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
from gradio_client.utils import SKIP_COMPONENTS, apply_diff


class GradioError(RuntimeError):
    """The app reported an error for the call (or the stream ended without a result)."""


class GradioSession:
    """One browser-like session: calls named endpoints and returns their final outputs, State outputs
    left out (as `gradio_client.Client.predict` does)."""

    def __init__(self, base_url: str, config: dict[str, Any] | None = None, timeout_s: float = 120) -> None:
        self.base = base_url.rstrip("/")
        # No proxy: loopback traffic must not leave the machine even where HTTP(S)_PROXY is set.
        self.http = httpx.Client(timeout=httpx.Timeout(timeout_s), trust_env=False)
        self.config = config or self.http.get(f"{self.base}/config").raise_for_status().json()
        self.prefix = self.config.get("api_prefix", "/gradio_api")
        self.session_hash = uuid.uuid4().hex[:11]
        self._types = {c["id"]: c.get("type", "") for c in self.config.get("components", [])}

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> GradioSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _dependency(self, api_name: str) -> tuple[int, dict[str, Any]]:
        name = api_name.lstrip("/")
        for i, dep in enumerate(self.config.get("dependencies", [])):
            if dep.get("api_name") == name:
                return dep.get("id", i), dep
        raise GradioError(f"the app has no endpoint named '{name}'")

    def open(self) -> GradioSession:
        """Run the page-load events, as a browser does when the page opens (this is also when Gradio
        creates the session's server-side state)."""
        for i, dep in enumerate(self.config.get("dependencies", [])):
            if dep.get("queue", True) is not False and any(t[1] == "load" for t in dep.get("targets", [])):
                self._run(dep.get("id", i), dep, ())
        return self

    def call(self, api_name: str, *args: Any) -> list[Any]:
        """Run an endpoint with the given (non-State) inputs; its final outputs, State outputs removed."""
        fn_index, dep = self._dependency(api_name)
        outputs = self._run(fn_index, dep, args)
        return [v for i, v in zip(dep["outputs"], outputs, strict=False) if self._types.get(i) not in SKIP_COMPONENTS]

    def _run(self, fn_index: int, dep: dict[str, Any], args: tuple[Any, ...]) -> list[Any]:
        values = iter(args)
        data = [None if self._types.get(i) == "state" else next(values, None) for i in dep["inputs"]]
        joined = self.http.post(
            f"{self.base}{self.prefix}/queue/join",
            json={"data": data, "event_data": None, "fn_index": fn_index, "session_hash": self.session_hash},
        )
        joined.raise_for_status()
        return self._stream(joined.json()["event_id"])

    def _stream(self, event_id: str) -> list[Any]:
        latest: list[Any] | None = None
        with self.http.stream(
            "GET", f"{self.base}{self.prefix}/queue/data", params={"session_hash": self.session_hash}
        ) as response:
            response.raise_for_status()
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                kind = message.get("msg")
                if kind == "close_stream":
                    break
                if message.get("event_id") != event_id:
                    continue
                output = message.get("output") or {}
                if kind == "process_generating":
                    chunk = output.get("data", [])  # the first whole, then diffs against the previous
                    if latest is None:
                        latest = list(chunk)
                    else:
                        latest = [apply_diff(a, d) for a, d in zip(latest, chunk, strict=True)]
                elif kind == "process_completed":
                    if not message.get("success", True):
                        raise GradioError(str(output.get("error") or message.get("title") or "the app failed"))
                    return list(output.get("data", latest or []))
        raise GradioError(f"the event stream ended before event {event_id} completed")
