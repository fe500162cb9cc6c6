#!/usr/bin/env python3
"""A TCP proxy between an RTSP client and server that loses interleaved RTP on purpose.

    chaos-proxy.py LISTEN_PORT TARGET_PORT [--drop-every N]

Listens on 127.0.0.1:LISTEN_PORT and forwards each connection to 127.0.0.1:TARGET_PORT. What the server
sends is read as RTSP: answers (a head, and a body of Content-Length bytes) pass whole; `$`-interleaved
frames (RFC 2326 10.12) pass too, except every Nth RTP frame (even channels; RTCP rides the odd ones),
which is dropped, as a lossy network would lose it. The loss is then what a client over TCP sees from a real
server, and a capture of the client's side shows exactly what was left. Prints "ready" once listening.
"""
import argparse
import asyncio


async def pump(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


async def server_to_client(reader, writer, drop_every):
    rtp = 0
    buffer = b""
    try:
        while True:
            # One message or frame at a time, read whole before it is passed on or dropped.
            while True:
                if buffer[:1] == b"$" and len(buffer) >= 4:
                    size = 4 + int.from_bytes(buffer[2:4], "big")
                    if len(buffer) >= size:
                        frame, buffer = buffer[:size], buffer[size:]
                        if frame[1] % 2 == 0:
                            rtp += 1
                            if drop_every and rtp % drop_every == 0:
                                continue
                        writer.write(frame)
                        continue
                elif buffer and buffer[:1] != b"$" and b"\r\n\r\n" in buffer:
                    head, _, rest = buffer.partition(b"\r\n\r\n")
                    length = 0
                    for line in head.split(b"\r\n"):
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value.strip())
                    if len(rest) >= length:
                        writer.write(head + b"\r\n\r\n" + rest[:length])
                        buffer = rest[length:]
                        continue
                break
            await writer.drain()
            data = await reader.read(65536)
            if not data:
                break
            buffer += data
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("listen", type=int)
    parser.add_argument("target", type=int)
    parser.add_argument("--drop-every", type=int, default=0)
    args = parser.parse_args()

    async def connected(client_reader, client_writer):
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", args.target)
        await asyncio.gather(
            pump(client_reader, server_writer),
            server_to_client(server_reader, client_writer, args.drop_every),
            return_exceptions=True)

    server = await asyncio.start_server(connected, "127.0.0.1", args.listen)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
