"""Bot API errors as the real server words them.

Every description the fake server can answer with is built here, so the list of
error strings lives in one place. The wording follows telegram-bot-api: the
description starts with the HTTP reason ("Bad Request", "Forbidden", ...), then
either a lower-cased human sentence or an upper-case MTProto code such as
``BUTTON_DATA_INVALID``. PTB strips the leading "Bad Request: " when it builds
its exception, so ``BadRequest.message`` reads e.g. "Message is not modified: ...".
"""

from __future__ import annotations

from typing import Any

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
TO_BOTS = "Forbidden: bot can't send messages to bots"
BLOCKED = "Forbidden: bot was blocked by the user"
CHAT_NOT_FOUND = "Bad Request: chat not found"
USER_NOT_FOUND = "Bad Request: user not found"
TEXT_EMPTY = "Bad Request: message text is empty"
TEXT_TOO_LONG = "Bad Request: message is too long"
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
PHOTO_INVALID = "Bad Request: IMAGE_PROCESS_FAILED"
PHOTO_DIMENSIONS = "Bad Request: PHOTO_INVALID_DIMENSIONS"
PHOTO_TOO_BIG = "Bad Request: file is too big"
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"
NO_MEDIA = "Bad Request: there is no media in the message to edit"
CANT_PIN = "Bad Request: not enough rights to manage pinned messages in the chat"
NO_CAPTION = "Bad Request: there is no caption in the message to edit"
# Edits and callback answers come back from MTProto with the raw code.
EDIT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
ANSWER_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
BUTTON_URL_INVALID = "Bad Request: BUTTON_URL_INVALID"
MARKUP_TOO_LONG = "Bad Request: reply markup is too long"
MARKUP_NOT_JSON = "Bad Request: can't parse reply keyboard markup JSON object"
MARKUP_NOT_OBJECT = "Bad Request: object expected as reply markup"
INLINE_KEYBOARD_EXPECTED = "Bad Request: inline keyboard expected"
BUTTON_NO_ACTION = (
    "Bad Request: can't parse inline keyboard button: "
    "Text buttons are unallowed in the inline keyboard"
)
BUTTON_NO_TEXT = "Bad Request: can't parse inline keyboard button: Can't find field \"text\""
QUERY_TOO_OLD = (
    "Bad Request: query is too old and response timeout expired or query ID is invalid"
)
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
CANT_EDIT = "Bad Request: message can't be edited"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
CANT_DELETE = "Bad Request: message can't be deleted"
CANT_DELETE_FOR_EVERYONE = "Bad Request: message can't be deleted for everyone"
REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"
THREAD_NOT_FOUND = "Bad Request: message thread not found"
"""A new message to a topic that does not exist (never did, or was deleted)."""
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"
"""A new message to a closed topic, by a bot that is not an admin allowed to manage topics."""
NO_TEXT_RIGHTS = "Bad Request: not enough rights to send text messages to the chat"
"""sendMessage by a bot muted in a group (restricted without ``can_send_messages``)."""
NO_PHOTO_RIGHTS = "Bad Request: not enough rights to send photos to the chat"
UNSUPPORTED_PARSE_MODE = "Bad Request: unsupported parse_mode"
COMMAND_INVALID = "Bad Request: BOT_COMMAND_INVALID"
COMMAND_DESCRIPTION_INVALID = "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID"
CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
UNAUTHORIZED = "Unauthorized"
NOT_FOUND = "Not Found"


def cant_parse_entities(detail: str) -> str:
    """The description of a rejected ``parse_mode=HTML`` text."""
    return f"Bad Request: can't parse entities: {detail}"


def too_many_requests(retry_after: int) -> str:
    """The description of a 429 flood-control answer."""
    return f"Too Many Requests: retry after {retry_after}"


def required(name: str) -> str:
    """The description of a missing required parameter."""
    return f'Bad Request: parameter "{name}" is required'


def kicked(chat_type: str) -> str:
    """403 for a group the bot was removed from (``chat_type`` is "group" or "supergroup")."""
    return f"Forbidden: bot was kicked from the {chat_type} chat"


def not_member(chat_type: str) -> str:
    """403 for a group the bot is not in."""
    return f"Forbidden: bot is not a member of the {chat_type} chat"


class ApiError(Exception):
    """An error answer of the Bot API: HTTP status, description and optional parameters."""

    def __init__(
        self, error_code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict[str, Any]:
        """The response body exactly as Telegram sends it."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(description: str, parameters: dict[str, Any] | None = None) -> ApiError:
    """A 400 error with a full description (which must start with "Bad Request: ")."""
    return ApiError(400, description, parameters)


def forbidden(description: str) -> ApiError:
    """A 403 error with a full description (which must start with "Forbidden: ")."""
    return ApiError(403, description)
