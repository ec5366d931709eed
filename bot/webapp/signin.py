"""Who asks the web app: Telegram's ``initData``, or, in ``chaodipi play`` only, the local sign-in.

Every API request names its person in the ``Authorization`` header:

* ``tma <initData>``: signed by Telegram (:mod:`bot.webapp.initdata`), the only
  way in when the bot runs against Telegram (``chaodipi run``);
* ``local <secret>``: a secret ``chaodipi play`` made for one person for this
  run (:class:`LocalSignIn`).  Only ``chaodipi play`` puts a
  :class:`LocalSignIn` in ``bot_data`` (no setting or environment variable
  can), so anywhere else the header is refused like forged ``initData``.  It
  is good only for requests that arrive at the address the server listens on
  (loopback, or the one named with ``--listen``), naming that address and
  port in ``Host`` (a web page elsewhere cannot point a name of its own at
  it), and, on loopback, from this machine; the secret is compared in
  constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from aiohttp import web

from bot.webapp.initdata import InitDataError, WebAppUser, validate

LOCAL_SIGNIN: Final = "local_signin"
"""The ``bot_data`` key of the :class:`LocalSignIn` (set by ``chaodipi play`` alone)."""


@dataclass(frozen=True, slots=True)
class LocalPerson:
    """Someone at a ``chaodipi play`` table, as the secret of their sign-in names them."""

    id: int
    first_name: str
    language_code: str


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        found = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


class LocalSignIn:
    """The secrets of ``chaodipi play``'s people, good on the address the server listens on."""

    def __init__(self, listen: str, port: int) -> None:
        address = _address(listen)
        if address is None or address.is_unspecified:
            raise ValueError(f"the local sign-in needs one address to listen on, not {listen!r}")
        self.listen = address
        self.port = port
        self._people: dict[bytes, LocalPerson] = {}
        """Per secret's SHA-256: the person it names."""

    @property
    def host(self) -> str:
        """``host:port`` as a browser names the server (the ``Host`` header it sends)."""
        host = f"[{self.listen}]" if self.listen.version == 6 else str(self.listen)
        return f"{host}:{self.port}"

    def issue(self, person: LocalPerson) -> str:
        """A new random secret naming this person (for the page's URL fragment)."""
        secret = secrets.token_urlsafe(32)
        self._people[hashlib.sha256(secret.encode()).digest()] = person
        return secret

    def user(self, request: web.Request, secret: str) -> WebAppUser:
        """The person whose secret this is; raises :class:`InitDataError` for a wrong secret or address."""
        if not self.reached_here(request):
            raise InitDataError("the local sign-in is good only on the address chaodipi play listens on")
        digest = hashlib.sha256(secret.encode()).digest()
        person = None
        for known, someone in self._people.items():
            if hmac.compare_digest(known, digest):
                person = someone
        if person is None:
            raise InitDataError("not a local sign-in of this run")
        # The stream checks the sign-in's age as initData's: a local one is as young as its last request.
        return WebAppUser(person.id, person.first_name, person.language_code, int(time.time()), digest.hex())

    def reached_here(self, request: web.Request) -> bool:
        """True for a request to the listening address and port, by that name, from where it may come."""
        transport = request.transport
        sockname = transport.get_extra_info("sockname") if transport is not None else None
        if not sockname or _address(str(sockname[0])) != self.listen:
            return False
        remote = _address(request.remote or "")
        if remote is None or (self.listen.is_loopback and not remote.is_loopback):
            return False
        return request.host == self.host


def who_asks(request: web.Request, bot_data: Mapping[str, Any]) -> WebAppUser:
    """The person a request names; raises :class:`InitDataError` when it does not prove who they are."""
    header = request.headers.get("Authorization", "")
    config = bot_data["config"]
    if header.startswith("local "):
        signin: LocalSignIn | None = bot_data.get(LOCAL_SIGNIN)
        if signin is None:
            raise InitDataError("no local sign-in on this server")
        return signin.user(request, header[len("local "):])
    init_data = header[len("tma "):] if header.startswith("tma ") else ""
    return validate(init_data, config.token, max_age=config.webapp_max_age)
