"""The moves of ``bench/bench_chaos.py`` that reach past the first lobby: settings, AI seats and Leave in the
lobby, the escape's question mid-match, 「我回来了」, hand buttons out of order or twice, 「下一局」, the
league's commands with their arguments, people leaving and joining groups, clocks running out, and the
Mini App's HTTP API.

Each move is a method of :class:`MoreMoves` (mixed into the bench's ``Chaos``) returning what was done, or a
line starting with "nothing" when there was nothing to do.  A client that would not let a person do it
raises RuntimeError or ValueError (the fake's way), which the bench counts as nothing.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from bot import callbacks
from bot.model import Table
from bot.tables.turns import set_timer
from tests.e2e.appkit import init_data_for
from tests.e2e.botkit import tables
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.fake_telegram.people import Group, MessageView, Person

LOBBY_WEIGHTS = {"sit": 6, "ai": 5, "start": 6, "rmai": 1, "leave": 1, "set": 2, "back": 1, "preset": 1,
                 "hidden": 1, "pace": 1, "timeout": 1, "strength": 1, "returns": 1}
"""How likely each lobby button is pressed, where shown (the settings panel's choices only once opened)."""
LEAGUE_ARGS: dict[str, tuple[str, ...]] = {
    "season": ("", "min 0", "min 2", "min 99999", "min -1", "new 春季赛", "new $\\x$ <b>", "new ‮", "new",
               "monthly", "tz Asia/Shanghai", "tz Mars/Olympus", "tz", "end", "x" * 80),
    "leaderboard": ("", "all", "cur", "-1", "9" * 30, "<i>"),
    "history": ("", "2", "0", "-5", "abc", "9" * 30),
    "stats": ("", "@bo", "9" * 30, "all"),
    "rules": ("", "nantong", "盐城", "<b>", "yancheng extra"),
}
APP_OPS = ("bid", "pass", "bury", "steal", "nosteal", "play", "fly", "")


class MoreMoves:
    """What people do beyond the first lobby (see the module's docstring); needs the bench's world."""

    server: FakeTelegram
    rng: random.Random
    people: list[Person]
    groups: list[Group]
    admin: Person
    app: Any
    session: aiohttp.ClientSession | None
    http_errors: list[str]

    def members(self, group: Group) -> list[Person]:
        """The people in a group now."""
        return [p for p in self.people if group.chat.members.get(p.id) not in (None, "left", "kicked")]

    def group_of(self, table: Table) -> Group | None:
        """The group (fake) a table is in, if it is still one of the run's."""
        return next((g for g in self.groups if g.id == table.chat_id), None)

    def shown(self, group: Group, table: Table) -> list[MessageView]:
        """The messages people see where the table is (its topic in a forum)."""
        return group.topic_messages(table.thread_id) if group.chat.is_forum else group.messages()

    def tables_where(self, test: Callable[[Table], bool]) -> list[Table]:
        """The bot's tables passing ``test``, in id order (so a seed repeats)."""
        return [t for _id, t in sorted(tables(self.app).by_id.items()) if test(t)]

    # --- the lobby ---------------------------------------------------------------------------
    async def lobby(self) -> str:
        """Someone presses a button of an open table's message: a seat, ± AI, Leave, Start, the settings."""
        found = self.tables_where(lambda t: t.status == "open" and t.match is None)
        if not found:
            return "nothing (no open table)"
        table = self.rng.choice(found)
        group = self.group_of(table)
        if group is None or not self.members(group):
            return "nothing (the table's group is gone)"
        message = next((m for m in reversed(self.shown(group, table)) if m.from_bot and any(
            (d := callbacks.decode(b.callback_data)) is not None and d.kind == "L" and d.table == table.id
            for b in m.all_buttons())), None)
        if message is None:
            return "nothing (no lobby shown)"
        buttons = [(b, d) for b in message.all_buttons() if (d := callbacks.decode(b.callback_data)) is not None
                   and d.op in LOBBY_WEIGHTS and not (d.op == "start" and not table.full)]
        if not buttons:
            return "nothing (no lobby button)"
        weights = [LOBBY_WEIGHTS[d.op] * (5 if d.op == "start" else 1) for _b, d in buttons]  # a full table starts
        button, data = self.rng.choices(buttons, weights=weights)[0]
        people = self.members(group)
        creator = next((p for p in people if p.id == table.creator_id), None)
        seated = [p for p in people if table.seat_of(p.id) is not None]
        if data.op in ("set", "back", "preset", "hidden", "pace", "timeout", "strength", "returns") and creator:
            person = creator if self.rng.random() < 0.8 else self.rng.choice(people)
        elif data.op in ("start", "leave", "rmai") and seated:
            person = self.rng.choice(seated)
        else:
            person = self.rng.choice(people)
        answer = await (await person.forge_callback(message, button.callback_data or "")).answer(timeout=30)
        if answer.url is not None:
            await person.open_link(answer.url)
        return f"lobby: {person.name} presses {button.text!r} ({data.op} {data.arg}) → {answer.text!r}"

    # --- seats mid-match -----------------------------------------------------------------------
    def seated(self, table: Table) -> list[Person]:
        """The people holding (or away from) a seat of the table."""
        return [p for p in self.people if table.seat_of(p.id) is not None]

    async def escape(self) -> str:
        """Someone seated mid-match sends /leave, then presses Leave or Stay on the question (or not yet)."""
        found = [t for t in self.tables_where(lambda t: t.playing) if self.seated(t)]
        if not found:
            return "nothing (nobody seated mid-match)"
        table = self.rng.choice(found)
        group = self.group_of(table)
        if group is None:
            return "nothing (the table's group is gone)"
        person = self.rng.choice(self.seated(table))
        roll = self.rng.random()
        if roll < 0.5 or not self.questions(group, table):
            topic = table.thread_id if group.chat.is_forum else None
            await person.command(group, "leave", topic=topic)
            return f"{person.name}: /leave mid-match at table {table.id}"
        message = self.rng.choice(self.questions(group, table))
        op = "esc" if roll < 0.75 else "stay"
        button = next((b for b in message.all_buttons() if (d := callbacks.decode(b.callback_data)) is not None
                       and d.op == op), None)
        if button is None:
            return "nothing (no such answer)"
        who = person if self.rng.random() < 0.85 else self.rng.choice(self.members(group) or [person])
        answer = await (await who.forge_callback(message, button.callback_data or "")).answer(timeout=30)
        return f"{who.name}: pressed {button.text!r} on an escape's question → {answer.text!r}"

    def questions(self, group: Group, table: Table) -> list[MessageView]:
        """The escape questions still showing their buttons where the table is."""
        return [m for m in self.shown(group, table)[-12:] if m.from_bot and any(
            (d := callbacks.decode(b.callback_data)) is not None and d.op in ("esc", "stay")
            for b in m.all_buttons())]

    async def come_back(self) -> str:
        """Someone the AI plays for presses 「我回来了」 in private (an old one too), or sends /join."""
        offered = [(p, m) for p in self.people if p.user.has_started_bot and not p.user.has_blocked_bot
                   for m in p.bot_private_messages()[-8:] if any(
                       (d := callbacks.decode(b.callback_data)) is not None and d.op == "return"
                       for b in m.all_buttons())]
        if offered and self.rng.random() < 0.8:
            person, message = self.rng.choice(offered)
            button = next(b for b in message.all_buttons() if (d := callbacks.decode(b.callback_data)) is not None
                          and d.op == "return")
            answer = await (await person.forge_callback(message, button.callback_data or "")).answer(timeout=30)
            return f"{person.name}: pressed {button.text!r} → {answer.text!r}"
        away = [(t, p) for t in self.tables_where(lambda t: t.playing) for p in self.people
                if (s := t.seat_of(p.id)) is not None and (seat := t.seats[s]) is not None and seat.timed_out
                or p.id in t.left]
        if not away:
            return "nothing (nobody away)"
        table, person = self.rng.choice(away)
        group = self.group_of(table)
        if group is None:
            return "nothing (the table's group is gone)"
        await person.command(group, "join", topic=table.thread_id if group.chat.is_forum else None)
        return f"{person.name}: /join to come back to table {table.id}"

    async def clock_runs_out(self) -> str:
        """The clock of a table's turn runs out now (as if the player had gone for lunch)."""
        found = self.tables_where(lambda t: t.playing and t.deadline is not None)
        if not found:
            return "nothing (no clock running)"
        table = self.rng.choice(found)
        async with table.lock:
            if table.deadline is None:
                return "nothing (the clock stopped meanwhile)"
            table.deadline = time.time() + 0.05
            set_timer(tables(self.app), table)
        return f"the clock of table {table.id} runs out"

    # --- the hand keyboard ---------------------------------------------------------------------
    async def mash(self) -> str:
        """Someone presses hand buttons out of order: a card, hint, clear, play, 🃏, twice at once sometimes."""
        people = [p for p in self.people if p.user.has_started_bot and not p.user.has_blocked_bot]
        person = self.rng.choice(people) if people else None
        messages = [m for m in person.bot_private_messages()[-4:] if m.all_buttons()] if person else []
        if person is None or not messages:
            return "nothing (no hand keyboard)"
        message = messages[-1] if self.rng.random() < 0.7 else self.rng.choice(messages)
        buttons = [b for b in message.all_buttons() if b.callback_data]
        if not buttons:
            return "nothing (only links)"
        chosen = self.rng.choices(buttons, k=self.rng.randint(1, 3))
        if self.rng.random() < 0.3:  # the same button twice, at once (a double tap)
            chosen = [chosen[0], chosen[0]]
            presses = [await person.forge_callback(message, b.callback_data or "") for b in chosen]
            answers = await asyncio.gather(*(p.answer(timeout=30) for p in presses))
        else:
            answers = [await (await person.forge_callback(message, b.callback_data or "")).answer(timeout=30)
                       for b in chosen]
        return f"{person.name}: mashed {[b.text for b in chosen]} → {[a.text for a in answers]}"

    async def next_hand(self) -> str:
        """Someone presses 「下一局」 (or 🃏) on a table's message, when shown."""
        candidates = [(g, m, b) for g in self.groups if g.chat.migrated_to is None for m in g.bot_messages()[-6:]
                      for b in m.all_buttons() if (d := callbacks.decode(b.callback_data)) is not None
                      and d.kind == "H" and d.op in ("next", "peek")]
        if not candidates:
            return "nothing (no 「下一局」 shown)"
        group, message, button = self.rng.choice(candidates)
        people = self.members(group)
        if not people:
            return "nothing (nobody in the group)"
        person = self.rng.choice(people)
        answer = await (await person.forge_callback(message, button.callback_data or "")).answer(timeout=30)
        return f"{person.name}: pressed {button.text!r} in {group.chat.title} → {answer.text!r}"

    # --- the league and the groups' people --------------------------------------------------------
    async def league(self) -> str:
        """A league command with an argument, odd or not; sometimes by an anonymous admin."""
        group = self.rng.choice(self.groups)
        people = self.members(group)
        if not people or group.chat.bot_status in ("kicked", "left") or group.chat.migrated_to is not None:
            return "nothing (no one in the group)"
        command = self.rng.choice(list(LEAGUE_ARGS))
        args = self.rng.choice(LEAGUE_ARGS[command])
        person = self.admin if self.rng.random() < 0.4 and self.admin in people else self.rng.choice(people)
        as_group = person is self.admin and self.rng.random() < 0.2
        topic = self.rng.choice([None, *group.chat.topics]) if group.chat.is_forum else None
        await person.command(group, command, *args.split(), as_group=as_group, topic=topic)
        return f"{'(anonymous) ' if as_group else ''}{person.name}: /{command} {args} in {group.chat.title}"

    async def membership(self) -> str:
        """Someone leaves a group, joins it (again), or is made an admin or no longer one."""
        group = self.rng.choice(self.groups)
        if group.chat.migrated_to is not None:
            return "nothing (an upgraded group's old id)"
        person = self.rng.choice(self.people[1:])  # the creator stays
        status = group.chat.members.get(person.id)
        state = self.server.state
        if status in (None, "left", "kicked"):
            group.add(person, "administrator" if self.rng.random() < 0.2 else "member")
            kind, what = "new_chat_members", [person.user.to_api()]
        elif self.rng.random() < 0.3:
            group.add(person, "member" if status == "administrator" else "administrator")
            return f"{person.name} is now {group.chat.members[person.id]} of {group.chat.title}"
        else:
            group.chat.members[person.id] = "left"
            kind, what = "left_chat_member", person.user.to_api()  # type: ignore[assignment]
        if group.chat.bot_status not in ("kicked", "left"):  # service messages reach a bot in the group
            message = state.add_message({"chat_id": group.id, "from_id": person.id, "extra": {kind: what}},
                                        self.server.clock())
            state.updates.push("message", message.to_api(state))
            state.on_change()
        return f"{person.name}: {kind} in {group.chat.title}"

    # --- the Mini App ----------------------------------------------------------------------------
    async def webapp(self) -> str:
        """Someone's Mini App asks the API something: the tables, a table's state, a move, a hint, back."""
        http = self.app.bot_data.get("http")
        if self.session is None or http is None:
            return "nothing (no web app)"
        base = f"http://127.0.0.1:{http.port}/app/api"
        person = self.rng.choice(self.people)
        headers = {"Authorization": f"tma {init_data_for(self.server, person)}"}
        ids = [t.id for t in self.tables_where(lambda t: t.seat_of(person.id) is not None)] or [1]
        table = self.rng.choice(ids + [self.rng.choice((0, 999999, 2 ** 63))])
        roll = self.rng.random()
        method, path, body = "GET", f"/tables/{table}", None
        if roll < 0.15:
            path = "/tables"
        elif roll < 0.45:
            status, state = await self.http("GET", base + f"/tables/{table}", headers, None)
            version = state.get("state", {}).get("version", "0") if isinstance(state, dict) else "0"
            hint: list[str] = []
            if status == 200 and self.rng.random() < 0.7:
                _s, found = await self.http("POST", base + f"/tables/{table}/hint", headers, {})
                hint = found.get("cards", []) if isinstance(found, dict) else []
            method, path = "POST", f"/tables/{table}/act"
            body = {"op": self.rng.choice(APP_OPS), "cards": hint, "trump": self.rng.choice((None, "S", "NT")),
                    "version": version if self.rng.random() < 0.8 else "1.2.3", "nonce": secrets.token_hex(8)}
        elif roll < 0.75:
            method, path, body = "POST", f"/tables/{table}/{self.rng.choice(('hint', 'back', 'next', 'ticket'))}", {}
        elif roll < 0.85:
            path = f"/hands/{self.rng.choice((1, 2, 3, 9999))}"
        else:
            path = f"/league/{self.rng.choice([g.id for g in self.groups] + [-1])}"
        status, _answer = await self.http(method, base + path, headers, body)
        return f"{person.name}: web app {method} {path} → {status}"

    async def http(self, method: str, url: str, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        """One request of the Mini App; a 5xx is a finding."""
        assert self.session is not None
        async with self.session.request(method, url, headers=headers, json=body) as response:
            text = await response.text()
            if response.status >= 500:
                self.http_errors.append(f"{method} {url.split('/app', 1)[1]} → {response.status} {text[:120]}")
            try:
                return response.status, await response.json(content_type=None)
            except ValueError:
                return response.status, text

