"""A fake Telegram Bot API server for end-to-end tests, and simulated people.

    async with FakeTelegram() as tg:
        alice = tg.person("Alice", "alice")
        table = tg.group("牌桌", [alice])
        bot = telegram.Bot(tg.token, base_url=tg.base_url)
        ...

See ``server.FakeTelegram`` for the server, ``people.Person`` for people.
"""

from .errors import ApiError
from .limits import FakeClock, FloodControl, FloodLimits
from .people import Button, CallbackAnswer, CallbackPress, DeepLinkError, Group, MessageView, Person
from .recording import CallLog, CallRecord
from .server import DEFAULT_TOKEN, FakeTelegram

__all__ = [
    "DEFAULT_TOKEN",
    "ApiError",
    "Button",
    "CallLog",
    "CallRecord",
    "CallbackAnswer",
    "CallbackPress",
    "DeepLinkError",
    "FakeClock",
    "FakeTelegram",
    "FloodControl",
    "FloodLimits",
    "Group",
    "MessageView",
    "Person",
]
