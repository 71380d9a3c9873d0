"""A client that resets its connection mid-answer costs the preview server one debug line,
not a traceback on stderr."""

from __future__ import annotations

import socket
import struct
import threading
import time

from bridgeshape_mirror.serving.http_server import make_server


def test_a_connection_reset_mid_answer_logs_no_traceback(tmp_path, capfd):
    (tmp_path / "api").mkdir()
    (tmp_path / "big.json").write_bytes(b" " * (32 * 1024 * 1024))
    server = make_server(tmp_path, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        for _ in range(3):
            client = socket.create_connection(server.server_address[:2])
            client.sendall(b"GET /big.json HTTP/1.1\r\nHost: x\r\n\r\n")
            client.recv(1024)  # the answer has begun
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()  # with linger 0: a reset, not a polite close
        time.sleep(1.0)
    finally:
        server.shutdown()
        server.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ConnectionResetError" not in err and "BrokenPipe" not in err
