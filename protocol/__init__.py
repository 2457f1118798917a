"""The wire protocol shared by server and client: standard library and msgpack only.

Modules, bottom up:

* :mod:`protocol.errors`: wire error codes (:class:`ErrorCode`, :data:`FATAL`,
  :data:`ERROR_HELP`) and the exceptions (:class:`RemoteProtocolError`: the peer's fault;
  :class:`LocalProtocolError`: ours).
* :mod:`protocol.framing`: bytes <-> dicts, as 4-byte length-prefixed msgpack frames or as
  JSON lines, with size limits.
* :mod:`protocol.fields`: field descriptors and their validation.
* :mod:`protocol.payloads`: the shapes of the maps nested in messages (the view and events a
  bot receives, table summaries, results, records, tournament infos, limits), as TypedDicts.
* :mod:`protocol.message_base`: the message base class, ``wire_message`` and the registries;
  :mod:`protocol.client_messages` and :mod:`protocol.server_messages`: one frozen dataclass per
  message of each direction; :mod:`protocol.examples`: one example of each.
* :mod:`protocol.messages`: all of the above in one place, and dict <-> message validation.
* :mod:`protocol.connection`: the sans-I/O connection (mode detection, handshake, limits).
"""

from .connection import Connection, ConnectionState, Mode, Role, check_version
from .errors import (
    ERROR_HELP,
    FATAL,
    ErrorCode,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .messages import (
    EXAMPLES,
    MESSAGE_CLASSES,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Direction,
    Message,
    decode_message,
    encode_message,
)

__all__ = [
    "ERROR_HELP",
    "EXAMPLES",
    "FATAL",
    "MESSAGE_CLASSES",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "Connection",
    "ConnectionState",
    "Direction",
    "ErrorCode",
    "LocalProtocolError",
    "Message",
    "Mode",
    "ProtocolError",
    "RemoteProtocolError",
    "Role",
    "check_version",
    "decode_message",
    "encode_message",
]
