"""A WebSocket server written by others (Python's `websockets`), for NetworkKit's WebSocket tests.

Serves on two ports, which it prints on the first line of standard output, until it is killed:
the first without a message limit, the second with a limit of 1 KiB (a larger message from the
client closes the connection with 1009). What a connection does is chosen by its path:
  /echo        every message back as it came
  /fragments   sends "hello" as three fragments, then echoes
  /bad-utf8    sends a text frame that is not UTF-8 (websockets does not check what it sends)
  /close       closes with 4001 "peer closes"
"""
import asyncio
import sys

from websockets.asyncio.server import serve


async def handler(connection):
    path = connection.request.path
    if path == "/fragments":
        await connection.send(["he", "l", "lo"])
    elif path == "/bad-utf8":
        await connection.send(b"\xc3\x28", text=True)
    elif path == "/close":
        await connection.close(4001, "peer closes")
        return
    async for message in connection:
        await connection.send(message)


async def main():
    async with serve(handler, "127.0.0.1", 0, max_size=None, compression=None) as server:
        small = await serve(handler, "127.0.0.1", 0, max_size=1024, compression=None)
        ports = [s.getsockname()[1] for s in (server.sockets[0], small.sockets[0])]
        print(ports[0], ports[1], flush=True)
        await asyncio.Future()


asyncio.run(main())
