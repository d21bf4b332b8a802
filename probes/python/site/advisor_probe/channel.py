"""The probe's end of the private channel to advisor: one JSON object per line each way."""

import json
import os
import socket


class Channel:
    def __init__(self, address):
        # advisor's private folder (mode 0700), which advisor removes however the run ends: the
        # probe keeps its own scratch there.
        self.folder = os.path.dirname(address)
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # not inherited by exec
        self._socket.connect(address)
        self._pending = b""

    def send(self, message):
        self.send_text(json.dumps(message, separators=(",", ":")))

    def send_text(self, text):
        """Sends one message already encoded as a JSON object without newlines."""
        self._socket.sendall(text.encode("utf-8", "replace") + b"\n")

    def receive(self):
        """The next command; None when advisor has closed the channel."""
        while b"\n" not in self._pending:
            chunk = self._socket.recv(65536)
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self._socket.close()
