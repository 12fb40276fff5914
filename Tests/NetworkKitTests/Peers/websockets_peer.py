"""A WebSocket server written by others (Python's `websockets`), for NetworkKit's WebSocket tests.

Serves on three ports, or four, which it prints on the first line of standard output, until it is
killed: the first without a message limit, the second with a limit of 1 KiB (a larger message from
the client closes the connection with 1009), the third accepting permessage-deflate (RFC 7692),
and, when started with a certificate file and a key file as arguments, a fourth speaking TLS with
them. What a connection does is chosen by its path:
  /echo        every message back as it came
  /fragments   sends "hello" as three fragments, then echoes
  /bad-utf8    sends a text frame that is not UTF-8 (websockets does not check what it sends)
  /close       closes with 4001 "peer closes"
  /ping        pings the client, waits for its pong, sends "pong received", then echoes
  /big-text    sends a text message of 1 MiB of "a", then echoes
  /drop        ends the TCP connection, without a close, after the first message it reads
  /extensions  sends the Sec-WebSocket-Extensions the server answered with ("none" when none), then
               echoes; /extensions?once echoes one message, then closes with 1000
"""
import asyncio
import ssl
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
    elif path == "/ping":
        pong = await connection.ping(b"peer")
        await asyncio.wait_for(pong, 5)
        await connection.send("pong received")
    elif path == "/big-text":
        await connection.send("a" * (1 << 20))
    elif path == "/drop":
        await connection.recv()
        connection.transport.abort()
        return
    elif path.startswith("/extensions"):
        await connection.send(connection.response.headers.get("Sec-WebSocket-Extensions", "none"))
        if path == "/extensions?once":
            await connection.send(await connection.recv())
            await connection.close(1000)
            return
    async for message in connection:
        await connection.send(message)


async def main():
    servers = [
        await serve(handler, "127.0.0.1", 0, max_size=None, compression=None),
        await serve(handler, "127.0.0.1", 0, max_size=1024, compression=None),
        await serve(handler, "127.0.0.1", 0, max_size=None, compression="deflate"),
    ]
    if len(sys.argv) == 3:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        servers.append(await serve(handler, "127.0.0.1", 0, max_size=None, compression=None, ssl=context))
    print(*(server.sockets[0].getsockname()[1] for server in servers), flush=True)
    await asyncio.Future()


asyncio.run(main())
