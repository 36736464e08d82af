"""A guard that records, and refuses, every attempt to reach a non-loopback address (tests/test_security.py,
and the assistant child process in tests/test_worker.py)."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _is_local_host(host: object) -> bool:
    if host in (None, "", b"", "localhost", b"localhost"):
        return True
    text = host.decode() if isinstance(host, bytes) else str(host)
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text.lower().endswith(".localhost")
    return ip.is_loopback or ip.is_unspecified


def _is_local_address(address: object) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        return _is_local_host(address[0])
    return False


@contextmanager
def outbound_guard() -> Iterator[list[str]]:
    """Record, and refuse, every attempt to resolve or reach a non-loopback address from Python code."""
    attempts: list[str] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_sendto, real_getaddrinfo = socket.socket.sendto, socket.getaddrinfo
    real_create_connection = socket.create_connection

    def refuse(what: str, target: object) -> OSError:
        attempts.append(f"{what} {target!r}")
        return OSError(errno.ENETUNREACH, f"test guard: outbound {what} to {target!r} refused")

    def connect(self, address):
        if not _is_local_address(address):
            raise refuse("connect", address)
        return real_connect(self, address)

    def connect_ex(self, address):
        if not _is_local_address(address):
            refuse("connect_ex", address)
            return errno.ENETUNREACH
        return real_connect_ex(self, address)

    def sendto(self, data, *args):
        address = args[-1] if args else None
        if address is not None and not _is_local_address(address):
            raise refuse("sendto", address)
        return real_sendto(self, data, *args)

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local_host(host):
            attempts.append(f"getaddrinfo {host!r}")
            raise socket.gaierror(socket.EAI_NONAME, f"test guard: lookup of {host!r} refused")
        return real_getaddrinfo(host, *args, **kwargs)

    def create_connection(address, *args, **kwargs):
        if not _is_local_address(address):
            raise refuse("create_connection", address)
        return real_create_connection(address, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        patch.setattr(socket.socket, "sendto", sendto)
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        patch.setattr(socket, "create_connection", create_connection)
        yield attempts
